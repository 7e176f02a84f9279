package shed_test

import (
	"fmt"
	"runtime"
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
// tenants could be evicted: with 16 times as many queued it costs 1.5 to
// 3 times as much (a scan of every slot made it 13 to 16 times). The
// bounded scan itself costs several times a new tenant without the bound
// (more under -race), so the test compares the bound with itself, not with
// no bound; it counts the CPU time of the test's thread, not the time the
// machine ran other work, and takes the least of a few alternating runs.
func TestNewTenantCostWhenAllKeptAreQueued(t *testing.T) {
	const maxTenants, fresh = 1000, 2_000
	perTenant := func(queued int) time.Duration {
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
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		start := threadCPU()
		for _, n := range names {
			// A tenant admitted directly is kept and on no list: the
			// next one's eviction has one tenant to find among all queued.
			s.Admit(now, "a"+n, 0, 1)
			_, _, err := s.Push(now, n, 0, 1, 0)
			require.NoError(t, err)
		}
		return time.Duration(threadCPU()-start) / fresh
	}
	few, many := time.Duration(1<<62), time.Duration(1<<62)
	for range 3 {
		few = min(few, perTenant(maxTenants+maxTenants/4))
		many = min(many, perTenant(20*maxTenants))
	}
	require.Less(t, many, 6*few+time.Microsecond,
		"a new tenant costs %v beyond MaxTenants with %d tenants queued, %v with %d", many, 20*maxTenants, few, maxTenants+maxTenants/4)
}
