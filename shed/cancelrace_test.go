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

// TestCancelRacesAdmission ends a queued request's context at the instant
// the capacity it waits for is released, many times: whichever wins, the
// request is counted once (admitted or canceled), Acquire returns a release
// exactly when it was admitted, and nothing stays in flight once that is
// called.
func TestCancelRacesAdmission(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const runs = 200
		var admitted, canceled int
		for range runs {
			s := newShedder(t, shed.Config{Capacity: shed.Fixed(1), QueueDeadline: time.Second})
			hold, err := s.Acquire(context.Background(), "A", 0, 1)
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
			time.AfterFunc(time.Millisecond, hold) // released as ctx ends
			rel, err := s.Acquire(ctx, "B", 0, 1)
			cancel()
			synctest.Wait()
			st := s.Stats()
			if err == nil {
				admitted++
				require.NotNil(t, rel)
				assert.Equal(t, int64(1), st.InFlight)
				assert.Zero(t, st.Canceled)
				rel()
			} else {
				canceled++
				require.ErrorIs(t, err, context.DeadlineExceeded)
				assert.Equal(t, int64(1), st.Canceled)
			}
			st = s.Stats()
			assert.Equal(t, int64(2), st.Admitted+st.Canceled, "A admitted, B counted once")
			assert.Zero(t, st.InFlight)
			assert.Zero(t, st.Queued)
		}
		t.Logf("admitted %d, canceled %d of %d", admitted, canceled, runs)
	})
}
