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

// TestClosedCountsInNeither pins the package doc's "A call that fails with
// ErrClosed counts in neither": not as an admission, and in no Rejected
// counter, whether it is a TryAcquire, a TryAcquireAt, an Acquire after Close
// or an Acquire that was blocked (refused for the limit) when Close woke it.
func TestClosedCountsInNeither(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sig := &constLoad{}
		sig.set(0.5)
		l := newLimiter(t, aimd.Config{Signal: sig, Manual: true, Max: 1, MemoryLimit: -1})
		done, err := l.TryAcquire()
		require.NoError(t, err)

		blocked := make(chan error, 1)
		go func() {
			_, err := l.Acquire(context.Background())
			blocked <- err
		}()
		synctest.Wait() // refused for the limit, waiting
		l.Close()
		require.ErrorIs(t, <-blocked, aimd.ErrClosed)

		_, err = l.TryAcquire()
		require.ErrorIs(t, err, aimd.ErrClosed)
		_, err = l.TryAcquireAt(time.Now())
		require.ErrorIs(t, err, aimd.ErrClosed)
		_, err = l.Acquire(context.Background())
		require.ErrorIs(t, err, aimd.ErrClosed)
		done(true)

		st := l.Stats()
		assert.Equal(t, int64(1), st.Admitted, "only the admission before Close")
		assert.Zero(t, st.RejectedLimit, "ErrClosed counted as a limit refusal")
		assert.Zero(t, st.RejectedRate, "ErrClosed counted as a rate refusal")
		assert.Zero(t, st.RejectedMemory, "ErrClosed counted as a memory refusal")
		assert.Zero(t, st.Rejected())
	})
}
