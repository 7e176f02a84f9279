package shed_test

import (
	"context"
	"fmt"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestFastPathAllocsNamesFromBuffer: a gateway reads tenant names from the
// network, into a buffer it reuses, and converts them with string(buf). The
// fast path allocated once per admission there, for that conversion: the
// Shedder kept the caller's string (as a new tenant's key, and past about
// 49,000 tenants in its log of deferred admissions), so the string escaped
// to the heap. It now copies a name when it keeps it, and a conversion that
// fits the compiler's stack buffer (32 bytes) allocates nothing, from 1,350
// up to 100,000 tenants. Found by a review.
func TestFastPathAllocsNamesFromBuffer(t *testing.T) {
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
			buf := make([]byte, 0, 64)
			i := 0
			admit := func() {
				buf = append(buf[:0], names[i%n]...) // the request as read
				var r func()
				var err error
				if i&2 == 0 {
					r, err = s.Acquire(ctx, string(buf), i&1, 1)
				} else {
					r, err = s.TryAcquire(string(buf), i&1, 1)
				}
				if err != nil {
					panic(err)
				}
				r()
				i += 7919
			}
			admit()
			require.Zero(t, testing.AllocsPerRun(20_000, admit), "allocations per fast-path admission, %d tenants", n)
			require.Equal(t, n, s.Stats().Tenants)
		})
	}
}

// TestNamesFromReusedBuffer: a name passed as a view of a buffer that the
// caller then reuses (unsafe.String, as a parser that avoids copies makes
// it) is copied where the Shedder keeps it: the tenants keep their names and
// their counts, for a new tenant and for admissions whose bookkeeping is
// deferred (past about 49,000 tenants). The key used to be the caller's
// bytes, so that the next request's name overwrote it. Found by a review.
func TestNamesFromReusedBuffer(t *testing.T) {
	for _, n := range []int{100, 60_000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := newShedder(t, shed.Config{Capacity: shed.Fixed(1 << 30)})
			ctx := context.Background()
			buf := make([]byte, 0, 64)
			view := func(name string) string {
				buf = append(buf[:0], name...)
				return unsafe.String(unsafe.SliceData(buf), len(buf))
			}
			names := tenantNames(n)
			for _, name := range names {
				r, err := s.Acquire(ctx, view(name), 0, 1)
				require.NoError(t, err)
				r()
			}
			for _, name := range names[:100] {
				r, err := s.Acquire(ctx, view(name), 1, 1)
				require.NoError(t, err)
				r()
			}
			long := fmt.Sprintf("%0100d", n) // too long to be deferred: counted at once
			r, err := s.Acquire(ctx, view(long), 0, 1)
			require.NoError(t, err)
			r()
			view("overwritten-000") // the buffer's next request
			require.Equal(t, n+1, s.Stats().Tenants)
			require.Len(t, s.Tenant(long), 2)
			for _, name := range names[:100] {
				bs := s.Tenant(name)
				require.Len(t, bs, 2, name)
				assert.Equal(t, name, bs[0].Tenant)
				assert.Equal(t, int64(1), bs[0].Admitted, name)
				assert.Equal(t, int64(1), bs[1].Admitted, name)
			}
		})
	}
}
