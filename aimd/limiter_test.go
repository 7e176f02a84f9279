package aimd_test

import (
	"context"
	"encoding/json"
	"math"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// constLoad is a Signal returning a settable load.
type constLoad struct{ v atomic.Value }

func (c *constLoad) set(v float64) { c.v.Store(v) }
func (c *constLoad) Sample(time.Time) (float64, error) {
	v, _ := c.v.Load().(float64)
	return v, nil
}

func newLimiter(t *testing.T, cfg aimd.Config) *aimd.Limiter {
	t.Helper()
	l, err := aimd.New(cfg)
	require.NoError(t, err)
	return l
}

func TestLimiterConcurrencyLimit(t *testing.T) {
	sig := &constLoad{}
	sig.set(0.5)
	l := newLimiter(t, aimd.Config{Signal: sig, Manual: true, Max: 3, MemoryLimit: -1})
	var dones []func(bool)
	for range 3 {
		d, err := l.TryAcquire()
		require.NoError(t, err)
		dones = append(dones, d)
	}
	_, err := l.TryAcquire()
	require.ErrorIs(t, err, aimd.ErrLimitExceeded)
	dones[0](true)
	dones[1](false)
	d, err := l.TryAcquire()
	require.NoError(t, err)
	d(true)
	dones[2](true)
	st := l.Stats()
	assert.Equal(t, int64(4), st.Admitted)
	assert.Equal(t, int64(3), st.Succeeded)
	assert.Equal(t, int64(1), st.Failed)
	assert.Equal(t, int64(1), st.RejectedLimit)
	assert.Equal(t, 0, st.InFlight)
	assert.Equal(t, 3, l.Limit())
}

// TestLimiterOnExplicitTime drives a Limiter with Tick against the plant of
// control_test.go: the limit follows the capacity both ways.
func TestLimiterOnExplicitTime(t *testing.T) {
	p := plant{capacity: 100}
	var l *aimd.Limiter
	sig := aimd.SignalFunc(func(time.Time) (float64, error) { return p.load(float64(l.Limit())), nil })
	l = newLimiter(t, aimd.Config{Signal: sig, Manual: true, Initial: 1, MemoryLimit: -1})
	now := time.Unix(0, 0)
	tick := func(d time.Duration) {
		for range int(d / (100 * time.Millisecond)) {
			now = now.Add(100 * time.Millisecond)
			require.NoError(t, l.Tick(now))
		}
	}
	tick(5 * time.Second)
	assert.InDelta(t, 90, l.Limit(), 9)
	p.capacity = 200
	tick(5 * time.Second)
	assert.InDelta(t, 180, l.Limit(), 18)
	p.capacity = 50
	tick(5 * time.Second)
	assert.InDelta(t, 45, l.Limit(), 4.5)
	st := l.Stats()
	assert.Equal(t, int64(150), st.Steps)
	assert.Positive(t, st.Increases)
	assert.Positive(t, st.Decreases)
}

func TestLimiterTokenBucketBurst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sig := &constLoad{}
		sig.set(0.5)
		// 100/s with a 100ms period: at most 10 tokens at once, however long idle.
		l := newLimiter(t, aimd.Config{Signal: sig, Manual: true, MaxRate: 100, MinRate: 1, Period: 100 * time.Millisecond, MemoryLimit: -1})
		time.Sleep(10 * time.Second) // idle: virtual time under synctest
		n := 0
		for {
			d, err := l.TryAcquire()
			if err != nil {
				require.ErrorIs(t, err, aimd.ErrLimitExceeded)
				break
			}
			d(true)
			n++
		}
		assert.Equal(t, 10, n, "a burst releases at most one period of tokens")
		assert.Equal(t, int64(1), l.Stats().RejectedRate)
		// Blocking Acquire waits for the next token: 10 ms at 100/s.
		start := time.Now()
		d, err := l.Acquire(context.Background())
		require.NoError(t, err)
		d(true)
		assert.Equal(t, 10*time.Millisecond, time.Since(start))
		// The loop regulates the rate too: overload halves it (Decrease floor 0.5).
		sig.set(math.Inf(1))
		require.NoError(t, l.SetConfig(aimd.Config{Signal: sig, Manual: true, MaxRate: 100, MinRate: 1, Period: 100 * time.Millisecond, Decrease: 0.5, MemoryLimit: -1}))
		require.NoError(t, l.Tick(time.Now()))
		assert.InDelta(t, 50, l.Stats().Rate, 1e-9)
	})
}

// TestLimiterTryAcquireAt: the token bucket refills by the caller's time, not
// the clock's; a time earlier than one already seen refills nothing. So it
// does on a clock that starts at the zero time.Time, which the bucket took
// for "no refill yet" and so lost the first interval's tokens.
func TestLimiterTryAcquireAt(t *testing.T) {
	for _, t0 := range []time.Time{time.Unix(1_000_000, 0), {}} {
		sig := &constLoad{}
		sig.set(0.5)
		l := newLimiter(t, aimd.Config{Signal: sig, Manual: true, MaxRate: 100, MinRate: 1, Period: 100 * time.Millisecond, MemoryLimit: -1})
		take := func(at time.Time) int {
			n := 0
			for {
				d, err := l.TryAcquireAt(at)
				if err != nil {
					require.ErrorIs(t, err, aimd.ErrLimitExceeded)
					return n
				}
				d(true)
				n++
			}
		}
		assert.Equal(t, 10, take(t0), "from %v: the bucket starts with one period of tokens", t0)
		assert.Equal(t, 5, take(t0.Add(50*time.Millisecond)), "from %v: 50 ms at 100/s", t0)
		assert.Equal(t, 0, take(t0.Add(10*time.Millisecond)), "from %v: an earlier time refills nothing", t0)
		assert.Equal(t, 10, take(t0.Add(10*time.Second)), "from %v: at most one period's tokens", t0)
	}
}

func TestLimiterMemoryGuard(t *testing.T) {
	var heap atomic.Uint64
	sig := &constLoad{}
	sig.set(0.5)
	l := newLimiter(t, aimd.Config{Signal: sig, Manual: true, MemoryLimit: 1000, HeapBytes: heap.Load})
	now := time.Unix(0, 0)
	tests := []struct {
		heap    uint64
		wantErr error
	}{
		{heap: 500},
		{heap: 899},
		{heap: 900, wantErr: aimd.ErrMemory}, // trips at MemoryHigh 0.9
		{heap: 850, wantErr: aimd.ErrMemory}, // hysteresis: still tripped
		{heap: 801, wantErr: aimd.ErrMemory},
		{heap: 799}, // resets below MemoryLow 0.8
		{heap: 850}, // does not trip again until 900
	}
	for _, tt := range tests {
		heap.Store(tt.heap)
		now = now.Add(100 * time.Millisecond)
		require.NoError(t, l.Tick(now))
		d, err := l.TryAcquire()
		if tt.wantErr != nil {
			require.ErrorIs(t, err, tt.wantErr, "heap %d", tt.heap)
			continue
		}
		require.NoError(t, err, "heap %d", tt.heap)
		d(true)
	}
	st := l.Stats()
	assert.Equal(t, int64(1), st.MemoryTrips)
	assert.Equal(t, int64(3), st.RejectedMemory)
	assert.InDelta(t, 1000, st.MemoryLimit, 0)
}

func TestLimiterAcquireBlocksAndClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sig := &constLoad{}
		sig.set(0.5)
		l := newLimiter(t, aimd.Config{Signal: sig, Manual: true, Max: 1, MemoryLimit: -1})
		d, err := l.Acquire(context.Background())
		require.NoError(t, err)
		got := make(chan error, 1)
		go func() {
			d2, err := l.Acquire(context.Background())
			if err == nil {
				d2(true)
			}
			got <- err
		}()
		synctest.Wait()
		d(true) // the release wakes the waiter
		require.NoError(t, <-got)

		d, err = l.Acquire(context.Background())
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err = l.Acquire(ctx)
		require.ErrorIs(t, err, context.DeadlineExceeded)

		go func() {
			_, err := l.Acquire(context.Background())
			got <- err
		}()
		synctest.Wait()
		l.Close()
		require.ErrorIs(t, <-got, aimd.ErrClosed)
		_, err = l.TryAcquire()
		require.ErrorIs(t, err, aimd.ErrClosed)
		d(true)
		assert.Equal(t, 0, l.Stats().InFlight)
	})
}

func TestLimiterLazyStep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sig := &constLoad{}
		sig.set(2) // overloaded
		l := newLimiter(t, aimd.Config{Signal: sig, Initial: 100, MemoryLimit: -1})
		d, err := l.TryAcquire()
		require.NoError(t, err)
		d(true)
		require.Equal(t, int64(1), l.Stats().Steps, "the first admission steps")
		d, _ = l.TryAcquire()
		d(true)
		require.Equal(t, int64(1), l.Stats().Steps, "no second step within the period")
		time.Sleep(aimd.DefaultPeriod)
		d, _ = l.TryAcquire()
		d(true)
		st := l.Stats()
		assert.Equal(t, int64(2), st.Steps)
		assert.Equal(t, 49, st.Limit, "100 x 0.7 x 0.7")
	})
}

func TestLimiterSignalError(t *testing.T) {
	l := newLimiter(t, aimd.Config{Manual: true, Initial: 10, MemoryLimit: -1,
		Signal: aimd.SignalFunc(func(time.Time) (float64, error) { return 0, assert.AnError })})
	require.ErrorIs(t, l.Tick(time.Now()), assert.AnError)
	assert.Equal(t, 10, l.Limit())
	assert.Equal(t, int64(1), l.Stats().SignalErrors)
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		give    aimd.Config
		wantErr string
	}{
		{give: aimd.Config{}},
		{give: aimd.Config{Target: -1}, wantErr: "aimd: Target"},
		{give: aimd.Config{Target: math.NaN()}, wantErr: "aimd: Target"},
		{give: aimd.Config{Period: -1}, wantErr: "aimd: Period"},
		{give: aimd.Config{Min: -1}, wantErr: "aimd: Min -1 is negative"},
		{give: aimd.Config{Min: 10, Max: 5}, wantErr: "aimd: Min 10 exceeds Max 5"},
		{give: aimd.Config{Max: 5, Initial: 6}, wantErr: "aimd: Initial 6"},
		{give: aimd.Config{Increase: -1}, wantErr: "aimd: Increase -1 is negative"},
		{give: aimd.Config{Decrease: 1}, wantErr: "aimd: Decrease"},
		{give: aimd.Config{MinRate: 5, MaxRate: 1}, wantErr: "aimd: rate bounds"},
		{give: aimd.Config{MemoryHigh: 2}, wantErr: "aimd: MemoryHigh"},
		{give: aimd.Config{MemoryHigh: 0.5, MemoryLow: 0.6}, wantErr: "aimd: MemoryLow"},
	}
	for _, tt := range tests {
		_, err := aimd.New(tt.give)
		if tt.wantErr == "" {
			assert.NoError(t, err)
			continue
		}
		assert.ErrorContains(t, err, tt.wantErr)
	}
	l := newLimiter(t, aimd.Config{Manual: true, MemoryLimit: -1})
	require.Error(t, l.SetConfig(aimd.Config{Decrease: 2}))
	require.NoError(t, l.SetConfig(aimd.Config{Manual: true, Max: 7, MemoryLimit: -1}))
	assert.Equal(t, 7, l.Limit(), "the limit is clamped into the new bounds")
}

// TestLimiterStress: concurrent admissions and control steps under -race never
// exceed the limit in force.
func TestLimiterStress(t *testing.T) {
	sig := &constLoad{}
	sig.set(0.5)
	l := newLimiter(t, aimd.Config{Signal: sig, Manual: true, Max: 8, MemoryLimit: -1})
	var inflight atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 2000 {
				d, err := l.TryAcquire()
				if err != nil {
					continue
				}
				if n := inflight.Add(1); n > 8 {
					t.Errorf("in flight %d > max 8", n)
				}
				inflight.Add(-1)
				d(true)
			}
		})
	}
	wg.Go(func() {
		now := time.Unix(0, 0)
		for i := range 200 {
			sig.set(float64(i%3) * 0.6)
			now = now.Add(time.Millisecond)
			_ = l.Tick(now)
		}
	})
	wg.Wait()
	st := l.Stats()
	assert.Equal(t, 0, st.InFlight)
	assert.Equal(t, st.Admitted, st.Succeeded)
	assert.Equal(t, int64(200), st.Steps)
}

// TestMemoryGuardFollowsGOMEMLIMIT: with MemoryLimit zero the guard watches
// GOMEMLIMIT, and reads the real Go memory through runtime/metrics.
func TestMemoryGuardFollowsGOMEMLIMIT(t *testing.T) {
	old := debug.SetMemoryLimit(1 << 40)
	defer debug.SetMemoryLimit(old)
	l := newLimiter(t, aimd.Config{Manual: true, Signal: aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })})
	require.NoError(t, l.Tick(time.Now()))
	st := l.Stats()
	assert.InDelta(t, float64(1<<40), st.MemoryLimit, 0)
	assert.Positive(t, st.HeapBytes, "the Go memory read via runtime/metrics")
	assert.False(t, st.MemoryHigh)

	debug.SetMemoryLimit(math.MaxInt64) // no GOMEMLIMIT: no guard
	l = newLimiter(t, aimd.Config{Manual: true, Signal: aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })})
	assert.Zero(t, l.Stats().MemoryLimit)
}

// TestStatsLoadSkipsNaN: a NaN sample ("no reading", e.g. ProcessCPU's first
// sample) leaves Stats.Load at the last real reading, so Stats stays
// JSON-encodable for the control surface.
func TestStatsLoadSkipsNaN(t *testing.T) {
	samples := []float64{math.NaN(), 0.4, math.NaN()}
	i := 0
	l := newLimiter(t, aimd.Config{Manual: true, MemoryLimit: -1, Signal: aimd.SignalFunc(func(time.Time) (float64, error) {
		v := samples[i]
		i++
		return v, nil
	})})
	now := time.Unix(0, 0)
	want := []float64{0, 0.4, 0.4}
	for k := range samples {
		require.NoError(t, l.Tick(now.Add(time.Duration(k)*time.Second)))
		assert.InDelta(t, want[k], l.Stats().Load, 0, "after sample %d", k)
		_, err := json.Marshal(l.Stats())
		require.NoError(t, err)
	}
}
