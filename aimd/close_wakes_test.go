package aimd_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestCloseWakesBlockedAcquire pins Close's "wakes blocked Acquire calls":
// an Acquire blocked for the limit returns ErrClosed at once, not when its
// wait (up to a Period, here an hour) ends. The tests that closed a Limiter
// under a blocked Acquire received its result with a blocking read, which
// synctest satisfied by advancing to the end of that wait: a Close that woke
// no one passed the suite.
func TestCloseWakesBlockedAcquire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sig := &constLoad{}
		sig.set(0.5)
		l := newLimiter(t, aimd.Config{Signal: sig, Manual: true, Period: time.Hour, Max: 1, MemoryLimit: -1})
		done, err := l.TryAcquire()
		require.NoError(t, err)
		defer done(true)

		start := time.Now()
		got := make(chan error, 1)
		go func() {
			_, err := l.Acquire(context.Background())
			got <- err
		}()
		synctest.Wait() // refused for the limit, waiting
		l.Close()
		synctest.Wait()
		select {
		case err := <-got:
			require.ErrorIs(t, err, aimd.ErrClosed)
		default:
			t.Fatal("Close did not wake the blocked Acquire")
		}
		assert.Zero(t, time.Since(start), "the Acquire waited out its timer")
	})
}
