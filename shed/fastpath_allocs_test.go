package shed_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestFastPathAllocsManyTenants: the target, 0 allocations on the
// fast path (capacity free, nothing queued) from 1,350 up to 100,000
// tenants, checked in the test suite: it was shown only by BenchmarkFastPath,
// which CI does not run, and the one allocation test used a single tenant,
// while past about 49,000 tenants admissions take another path (deferred
// bookkeeping) that no test covered (found by a review). Every tenant's state
// is created first, as in the benchmark; the admissions then cycle through
// them (Acquire and TryAcquire, two priorities).
func TestFastPathAllocsManyTenants(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	for _, n := range []int{1350, 100_000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := newShedder(t, shed.Config{Capacity: shed.Fixed(1 << 30)})
			names := tenantNames(n)
			ctx := context.Background()
			for _, name := range names {
				r, err := s.Acquire(ctx, name, 0, 1)
				require.NoError(t, err)
				r()
			}
			require.Equal(t, n, s.Stats().Tenants)
			i := 0
			admit := func() {
				name := names[i%n]
				var r func()
				var err error
				if i&2 == 0 {
					r, err = s.Acquire(ctx, name, i&1, 1)
				} else {
					r, err = s.TryAcquire(name, i&1, 1)
				}
				if err != nil {
					panic(err)
				}
				r()
				i += 7919 // a prime: the cycle visits every tenant, far apart
			}
			admit()
			require.Zero(t, testing.AllocsPerRun(20_000, admit), "allocations per fast-path admission, %d tenants", n)
		})
	}
}
