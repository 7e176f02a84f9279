package aimd_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// stall makes the first reading of a step wait: its first call reads
// first, tells entered, and returns only once release is closed; later
// calls read later at once.
type stall struct {
	calls            atomic.Int64
	first, later     float64
	entered, release chan struct{}
}

func newStall(first, later float64) *stall {
	return &stall{first: first, later: later, entered: make(chan struct{}), release: make(chan struct{})}
}

func (s *stall) read() float64 {
	if s.calls.Add(1) > 1 {
		return s.later
	}
	v := s.first // read now, returned late
	close(s.entered)
	<-s.release
	return v
}

// overlapTicks ticks l at first, which stalls in s, then at second, which
// completes, then lets the first one finish.
func overlapTicks(t *testing.T, l *aimd.Limiter, s *stall, first, second time.Time) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- l.Tick(first) }()
	<-s.entered
	require.NoError(t, l.Tick(second))
	close(s.release)
	require.NoError(t, <-done)
}

// TestOverlappingStepsKeepNewestHeap: a step that read the heap at 950 of
// 1000 stalled (in HeapBytes) while a step at a later time read 500 and
// completed. The stalled one then stored its older reading over the newer
// and tripped the guard: with Manual set, every admission failed with
// ErrMemory until the next Tick, with the heap at half its limit.
func TestOverlappingStepsKeepNewestHeap(t *testing.T) {
	s := newStall(950, 500)
	sig := &constLoad{}
	sig.set(0.5)
	var stepping atomic.Bool // New reads the heap too: 0, not the stalling read
	l := newLimiter(t, aimd.Config{Signal: sig, Manual: true, MemoryLimit: 1000,
		HeapBytes: func() uint64 {
			if !stepping.Load() {
				return 0
			}
			return uint64(s.read())
		}})
	stepping.Store(true)
	t0 := time.Unix(1000, 0)
	overlapTicks(t, l, s, t0, t0.Add(100*time.Millisecond))
	st := l.Stats()
	assert.Equal(t, 500.0, st.HeapBytes, "the newest reading")
	assert.False(t, st.MemoryHigh, "500 of 1000 trips nothing")
	assert.Zero(t, st.MemoryTrips)
	d, err := l.TryAcquireAt(t0.Add(100 * time.Millisecond))
	require.NoError(t, err)
	d(true)
}

// TestOverlappingStepsKeepNewestLoad: the same for the signal. A step that
// read an overload (2.0) stalled while a step at a later time read 0.5 and
// raised the limit; the stalled one then cut the limit for the older
// reading and left it in Stats.Load, though the load had dropped.
func TestOverlappingStepsKeepNewestLoad(t *testing.T) {
	s := newStall(2, 0.5)
	sig := aimd.SignalFunc(func(time.Time) (float64, error) { return s.read(), nil })
	l := newLimiter(t, aimd.Config{Signal: sig, Manual: true, MemoryLimit: -1, Initial: 100})
	t0 := time.Unix(1000, 0)
	overlapTicks(t, l, s, t0, t0.Add(100*time.Millisecond))
	st := l.Stats()
	assert.Equal(t, 0.5, st.Load, "the newest reading")
	assert.Equal(t, 123, st.Limit, "100 + 1 + 0.5 x 100 x 0.4/0.9, and no cut after it")
	assert.Zero(t, st.Decreases)
}

// TestOverlappingStepsOrderByTime: of two overlapping steps, the one at the
// later time counts, whichever began first; steps that do not overlap all
// count, whatever their times (an explicit clock set back keeps the loop).
func TestOverlappingStepsOrderByTime(t *testing.T) {
	t0 := time.Unix(1000, 0)
	t.Run("began first, later time", func(t *testing.T) {
		s := newStall(0.5, 2)
		sig := aimd.SignalFunc(func(time.Time) (float64, error) { return s.read(), nil })
		l := newLimiter(t, aimd.Config{Signal: sig, Manual: true, MemoryLimit: -1, Initial: 100})
		overlapTicks(t, l, s, t0.Add(100*time.Millisecond), t0)
		st := l.Stats()
		assert.Equal(t, 0.5, st.Load, "the stalled step is the newer one")
		assert.Equal(t, 1, int(st.Decreases))
		assert.Equal(t, 1, int(st.Increases))
	})
	t.Run("no overlap", func(t *testing.T) {
		sig := &constLoad{}
		sig.set(0.5)
		l := newLimiter(t, aimd.Config{Signal: sig, Manual: true, MemoryLimit: -1, Initial: 100})
		require.NoError(t, l.Tick(t0))
		sig.set(2)
		require.NoError(t, l.Tick(t0.Add(-time.Hour)))
		st := l.Stats()
		assert.Equal(t, 2.0, st.Load)
		assert.Equal(t, 1, int(st.Decreases))
	})
}
