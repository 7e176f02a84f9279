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

// TestAcquireCountsOnce: a blocked Acquire that gets in is one admission,
// not also a rejection. Its first refusal was counted in RejectedLimit (or
// RejectedRate, RejectedMemory) and its admission in Admitted, so Admitted
// plus Rejected exceeded the calls and a wait read as a refused request. A
// blocked Acquire now counts in the rejections only when it gives up, by the
// cause of its last refusal. Virtual time under synctest.
func TestAcquireCountsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, err := aimd.New(aimd.Config{Signal: &constLoad{}, Manual: true, Min: 1, Initial: 1, Max: 1, MemoryLimit: -1})
		require.NoError(t, err)
		done, err := l.TryAcquire()
		require.NoError(t, err)

		got := make(chan error, 1)
		go func() {
			d, err := l.Acquire(context.Background())
			if err == nil {
				d(true)
			}
			got <- err
		}()
		synctest.Wait() // blocked: the one unit is in flight
		done(true)
		require.NoError(t, <-got)
		st := l.Stats()
		assert.Equal(t, int64(2), st.Admitted)
		assert.Equal(t, int64(0), st.Rejected(), "the blocked Acquire got in: no rejection")

		// One that gives up is one rejection, by the cause that held it.
		done, err = l.TryAcquire()
		require.NoError(t, err)
		defer done(true)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		_, err = l.Acquire(ctx)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		st = l.Stats()
		assert.Equal(t, int64(3), st.Admitted)
		assert.Equal(t, int64(1), st.RejectedLimit, "the Acquire that gave up")
		assert.Equal(t, int64(1), st.Rejected())
	})
}
