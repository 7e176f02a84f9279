package shed_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestSetConfigLowersMaxTenants: a SetConfig that lowers MaxTenants bounds
// the tenants kept by the new value. Before, a new tenant evicted one tenant
// only, so the count stayed at the old bound for as long as new tenants kept
// coming (and for good while the kept ones stayed busy).
func TestSetConfigLowersMaxTenants(t *testing.T) {
	const before, after = 64, 8
	cfg := shed.Config{Capacity: shed.Fixed(1000), MaxTenants: before}
	s, err := shed.New(cfg)
	require.NoError(t, err)
	defer s.Close()
	admit := func(name string) {
		rel, err := s.TryAcquire(name, 0, 1)
		require.NoError(t, err)
		rel()
	}
	for i := range before {
		admit(fmt.Sprint("old", i))
	}
	require.Equal(t, before, s.Stats().Tenants)

	cfg.MaxTenants = after
	require.NoError(t, s.SetConfig(cfg))
	require.LessOrEqual(t, s.Stats().Tenants, after, "right after SetConfig")
	for i := range 2 * before {
		admit(fmt.Sprint("new", i))
		admit(fmt.Sprint("old", i%before)) // the old tenants stay busy
		require.LessOrEqual(t, s.Stats().Tenants, after, "after %d new tenants", i+1)
	}
}

// TestSetConfigLowersMaxTenantsQueued: tenants with requests queued when
// MaxTenants is lowered are kept (they cannot be reclaimed); once their
// queues drained, new tenants bring the count back down to the new bound.
func TestSetConfigLowersMaxTenantsQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const before, after = 16, 4
		cfg := shed.Config{Capacity: shed.Fixed(1), MaxTenants: before, QueueDeadline: time.Second}
		s, err := shed.New(cfg)
		require.NoError(t, err)
		defer s.Close()
		hold, err := s.TryAcquire("holder", 0, 1)
		require.NoError(t, err)
		done := make(chan error, before)
		for i := range before - 1 {
			go func() {
				rel, err := s.Acquire(context.Background(), fmt.Sprint("q", i), 0, 1)
				if err == nil {
					rel()
				}
				done <- err
			}()
		}
		synctest.Wait()
		require.Equal(t, before-1, s.Stats().Queued)

		cfg.MaxTenants = after
		require.NoError(t, s.SetConfig(cfg))
		hold() // the queue drains, one request at a time
		for range before - 1 {
			require.NoError(t, <-done)
		}
		require.Zero(t, s.Stats().Queued)
		for i := range 2 * before {
			rel, err := s.TryAcquire(fmt.Sprint("new", i), 0, 1)
			require.NoError(t, err)
			rel()
		}
		require.LessOrEqual(t, s.Stats().Tenants, after)
	})
}
