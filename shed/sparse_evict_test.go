package shed_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestMaxTenantsInSparseTable: MaxTenants bounds the tenants kept also once
// the tenant table is left far larger than the bound needs, by a SetConfig
// that lowered MaxTenants or by a burst of queued tenants (kept beyond it,
// since they cannot be evicted) that drained. An eviction samples at most
// 256 slots from the hand, and the table shrank only when the reclamation
// hand wrapped, which the evictions (stepping the same hand) nearly always
// did first: the table stayed sparse, most samples met no tenant, and up to
// 16 times MaxTenants were kept for as long as new tenants came.
func TestMaxTenantsInSparseTable(t *testing.T) {
	const many, bound, fresh = 20_000, 16, 5_000
	now := time.Unix(1_700_000_000, 0)
	newTenants := func(t *testing.T, s *shed.Scheduler[int]) {
		for i := range fresh {
			s.Admit(now, fmt.Sprint("new", i), 0, 1)
			require.LessOrEqual(t, s.Stats().Tenants, bound, "after %d new tenants", i+1)
		}
	}
	t.Run("SetConfig", func(t *testing.T) {
		cfg := shed.Config{MaxTenants: 2 * many, IdleTimeout: time.Hour}
		s, err := shed.NewScheduler[int](cfg)
		require.NoError(t, err)
		for i := range many {
			s.Admit(now, fmt.Sprint("old", i), 0, 1)
		}
		require.Equal(t, many, s.Stats().Tenants)
		cfg.MaxTenants = bound
		require.NoError(t, s.SetConfig(cfg))
		require.Equal(t, bound, s.Stats().Tenants)
		newTenants(t, s)
	})
	t.Run("QueuedBurst", func(t *testing.T) {
		s, err := shed.NewScheduler[int](shed.Config{MaxTenants: bound, IdleTimeout: time.Hour,
			QueueDeadline: time.Hour, StandingDeadline: time.Hour})
		require.NoError(t, err)
		for i := range many {
			_, _, err := s.Push(now, fmt.Sprint("q", i), 0, 1, i)
			require.NoError(t, err)
		}
		require.Equal(t, many, s.Stats().Tenants, "queued tenants are kept beyond the bound")
		for range many {
			_, _, ok := s.Pop(now, 1, nil)
			require.True(t, ok)
		}
		require.Zero(t, s.Stats().Queued)
		s.Admit(now, "first", 0, 1) // evicts down to the bound
		require.LessOrEqual(t, s.Stats().Tenants, bound)
		newTenants(t, s)
	})
}
