package shed_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestShedderSetConfigLargerCapacityAdmitsQueued: a SetConfig that raises the
// capacity admits the queued requests that now fit, as Kick does. They used
// to wait for the next release or arrival, and with long-running work in
// flight and no arrival they were shed at their deadline with the capacity
// free.
func TestShedderSetConfigLargerCapacityAdmitsQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := shed.Config{Capacity: shed.Fixed(1), QueueDeadline: time.Second}
		s := newShedder(t, cfg)
		hold, err := s.Acquire(context.Background(), "A", 0, 1)
		require.NoError(t, err)
		done := make(chan error, 1)
		go func() {
			rel, err := s.Acquire(context.Background(), "B", 0, 1)
			if err == nil {
				rel()
			}
			done <- err
		}()
		synctest.Wait()
		require.Equal(t, 1, s.Stats().Queued)

		cfg.Capacity = shed.Fixed(2)
		require.NoError(t, s.SetConfig(cfg))
		synctest.Wait() // no time passes: B is admitted by SetConfig itself
		select {
		case err := <-done:
			require.NoError(t, err)
		default:
			t.Fatal("B still queued with the capacity free")
		}
		st := s.Stats()
		assert.Zero(t, st.Queued)
		assert.Zero(t, st.ShedQueueDeadline)
		hold()
	})
}
