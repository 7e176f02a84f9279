package aimd

import (
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// wallStepped returns t with its wall reading moved by d (whole seconds) and
// its monotonic reading kept: what time.Now returns after the system clock is
// stepped by d (NTP, a VM resumed). No API builds such a time, so this edits
// time.Time's encoding (wall: hasMonotonic bit, 33 bits of seconds, 30 bits of
// nanoseconds); the result is checked through the API, and the test skips if
// the encoding ever changes.
func wallStepped(tb testing.TB, t time.Time, d time.Duration) time.Time {
	tb.Helper()
	type timeLayout struct {
		wall uint64
		ext  int64
		loc  *time.Location
	}
	u := t
	p := (*timeLayout)(unsafe.Pointer(&u))
	p.wall += uint64(int64(d/time.Second)) << 30
	if u.Sub(t) != 0 || !u.Round(0).Equal(t.Round(0).Add(d)) {
		tb.Skip("time.Time's encoding changed: cannot build a time whose wall clock was stepped")
	}
	return u
}

// TestLazyStepFollowsMonotonicClock: the lazy schedule follows time.Now's
// monotonic reading, so a wall clock stepped back does not stall the control
// loop for as long as the step, and one stepped forward does not fire it early.
func TestLazyStepFollowsMonotonicClock(t *testing.T) {
	const period = 100 * time.Millisecond
	steps := 0
	l, err := New(Config{Period: period, MemoryLimit: -1,
		Signal: SignalFunc(func(time.Time) (float64, error) { steps++; return 0.5, nil })})
	require.NoError(t, err)
	admit := func(now time.Time) {
		t.Helper()
		done, err := l.TryAcquireAt(now)
		require.NoError(t, err)
		done(true)
	}

	t0 := time.Now()
	admit(t0)
	require.Equal(t, 1, steps, "the first admission steps")

	// Two periods later by the monotonic clock, but the wall clock was
	// stepped back an hour in between.
	admit(wallStepped(t, t0.Add(2*period), -time.Hour))
	require.Equal(t, 2, steps, "a period has passed: the wall clock stepping back must not hold the step off")

	// Half a period after that step by the monotonic clock, the wall clock
	// stepped forward a day.
	admit(wallStepped(t, t0.Add(2*period+period/2), 24*time.Hour))
	require.Equal(t, 2, steps, "half a period since the last step: the wall clock stepping forward must not fire one")

	admit(t0.Add(3 * period))
	require.Equal(t, 3, steps)
}

// TestLazyStepExplicitTime: explicit times without a monotonic reading,
// including ones long before the Limiter was made, step once per period. So
// do clocks centuries away from it, such as a simulation that starts at the
// zero time.Time: their offsets from the epoch saturated, and the loop
// stepped once and never again, or (after the epoch) at every admission.
func TestLazyStepExplicitTime(t *testing.T) {
	const period = 100 * time.Millisecond
	for _, give := range []time.Time{time.Unix(0, 0), time.Unix(1_000_000, 0), time.Now().Round(0).Add(time.Hour),
		{}, time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2500, 1, 1, 0, 0, 0, 0, time.UTC)} {
		steps := 0
		l, err := New(Config{Period: period, MemoryLimit: -1,
			Signal: SignalFunc(func(time.Time) (float64, error) { steps++; return 0.5, nil })})
		require.NoError(t, err)
		var got []int
		for _, off := range []time.Duration{0, period / 2, period, period + period/2, 2 * period} {
			done, err := l.TryAcquireAt(give.Add(off))
			require.NoError(t, err)
			done(true)
			got = append(got, steps)
		}
		require.Equal(t, []int{1, 1, 2, 2, 3}, got, "steps after each admission from %v", give)
	}
}
