package shed_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestNewTenantCostWhenAllKeptAreQueued: with more tenants queued than
// MaxTenants, none can be evicted, and a new tenant used to look at every
// slot of the table for one (under the Shedder's lock): 470 µs a new tenant
// with 20,000 queued, against 3.5 µs without the bound, so a burst of new
// tenants in an overload took the lock for seconds. The cost of a new
// tenant must not depend on how many are queued, also when a few kept
// tenants could be evicted.
func TestNewTenantCostWhenAllKeptAreQueued(t *testing.T) {
	const queued, fresh = 20_000, 2_000
	perTenant := func(maxTenants int) time.Duration {
		s, err := shed.NewScheduler[int](shed.Config{MaxTenants: maxTenants, QueueDeadline: time.Hour, StandingDeadline: time.Hour})
		require.NoError(t, err)
		now := time.Unix(1_700_000_000, 0)
		for i := range queued {
			_, _, err := s.Push(now, fmt.Sprint("q", i), 0, 1, 0)
			require.NoError(t, err)
		}
		names := make([]string, fresh)
		for i := range names {
			names[i] = fmt.Sprint("n", i)
		}
		start := time.Now()
		for _, n := range names {
			// A tenant admitted directly is kept and on no list: the
			// next one's eviction has one tenant to find among 20,000.
			s.Admit(now, "a"+n, 0, 1)
			_, _, err := s.Push(now, n, 0, 1, 0)
			require.NoError(t, err)
		}
		d := time.Since(start) / fresh
		return d
	}
	unbounded, bounded := perTenant(0), perTenant(1000)
	require.Less(t, bounded, 10*unbounded+time.Microsecond,
		"a new tenant costs %v beyond MaxTenants with every kept tenant queued, %v without the bound", bounded, unbounded)
}
