package aimd_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestSlowSampleBlocksOnlyTheStepper holds the package doc to its word: the
// admission that takes a lazy step samples the Signal outside the lock, and
// concurrent callers do not wait for it; TryAcquire, done, Limit, Stats,
// SetConfig (keeping its Signal) and Close wait only for the mutex, which no
// call holds while a Signal is sampled. A Signal that hangs here makes every
// one of those calls return while it hangs.
func TestSlowSampleBlocksOnlyTheStepper(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	sig := aimd.SignalFunc(func(time.Time) (float64, error) {
		close(entered) // a second sample panics: one step only
		<-release
		return 0.5, nil
	})
	cfg := aimd.Config{Signal: sig, Initial: 10, Max: 10, MemoryLimit: -1}
	l := newLimiter(t, cfg)
	stepper := make(chan error, 1)
	go func() {
		done, err := l.TryAcquire() // the first admission steps at once
		if err == nil {
			done(true)
		}
		stepper <- err
	}()
	<-entered

	others := make(chan error, 1)
	go func() {
		done, err := l.TryAcquire()
		if err != nil {
			others <- err
			return
		}
		done(true)
		_ = l.Limit()
		_ = l.Stats()
		c := l.Config()
		c.Target = 0.8
		if err := l.SetConfig(c); err != nil { // the same SignalFunc: replaced, no sample
			others <- err
			return
		}
		l.Close()
		others <- nil
	}()
	select {
	case err := <-others:
		require.NoError(t, err)
	case <-time.After(10 * time.Second): // a bound for a failure, not a wait
		close(release)
		t.Fatal("calls on the Limiter waited for the Signal another admission was sampling")
	}
	close(release)
	// The stepper admits after its step, by then on a closed Limiter.
	require.ErrorIs(t, <-stepper, aimd.ErrClosed)
	st := l.Stats()
	require.Equal(t, int64(1), st.Admitted)
	require.Equal(t, int64(1), st.Steps)
}
