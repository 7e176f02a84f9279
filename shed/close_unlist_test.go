package shed_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestCloseUnlistsEmptiedTenants: Close sheds the queued requests and leaves
// no tenant on a drain list. A tenant on a list is never reclaimed, so the
// one whose request Close removed last was kept for the Shedder's lifetime,
// beyond MaxTenants, while the refused arrivals after Close evicted every
// other tenant.
func TestCloseUnlistsEmptiedTenants(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newShedder(t, shed.Config{Capacity: shed.Fixed(1), MaxTenants: 2})
		hold, err := s.Acquire(context.Background(), "A", 0, 1)
		require.NoError(t, err)
		defer hold()
		queued := make(chan error, 2)
		for _, name := range []string{"B", "C"} {
			go func() {
				_, err := s.Acquire(context.Background(), name, 0, 1)
				queued <- err
			}()
			synctest.Wait()
		}
		require.Equal(t, 2, s.Stats().Queued)
		s.Close()
		for range 2 {
			require.True(t, errors.Is(<-queued, shed.ErrShed))
		}
		// Later arrivals, seen after B and C: the sampled LRU eviction
		// takes the oldest tenant that is on no drain list.
		time.Sleep(10 * time.Millisecond) // the bubble's clock
		for i := range 10 {
			_, err := s.TryAcquire(fmt.Sprint("late", i), 0, 1)
			require.Error(t, err)
		}
		for _, name := range []string{"B", "C"} {
			require.Nil(t, s.Tenant(name), "tenant %s, emptied by Close, is still kept after later arrivals", name)
		}
		require.LessOrEqual(t, s.Stats().Tenants, 2, "MaxTenants")
	})
}
