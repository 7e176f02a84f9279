package shed

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestEvictionSampleWrapsPastTableEnd: an eviction over MaxTenants takes the
// least recently seen of up to 8 sampled tenants, sampled from the hand on.
// A sample that reached the end of the tenant table used to stop there once
// it had a candidate, so with the hand on the table's last tenant the
// eviction took that one, however recently seen, and kept an idle tenant
// just past the wrap (with 6 tenants and MaxTenants 5, the model test saw a
// tenant seen 10 ms ago evicted while one idle for 262 ms was kept). With
// extra tenants reclaimed first, the table is sparse enough that the wrap
// shrinks it, which moves the slots under the sample's candidate.
func TestEvictionSampleWrapsPastTableEnd(t *testing.T) {
	for _, extra := range []int{0, 40} {
		t.Run(fmt.Sprint("extra=", extra), func(t *testing.T) {
			s, err := NewScheduler[int](Config{MaxTenants: 5 + extra, IdleTimeout: time.Hour})
			require.NoError(t, err)
			t0 := time.Unix(1_700_000_000, 0)
			for i := range extra {
				s.Admit(t0, fmt.Sprint("x", i), 0, 1)
			}
			names := []string{"a", "b", "c", "d", "e"}
			for i, n := range names {
				s.Admit(t0.Add(time.Duration(i)*10*time.Millisecond), n, 0, 1)
			}
			for i := range extra {
				name := fmt.Sprint("x", i)
				j, ok := s.tenants.find(name, s.tenants.hash(name))
				require.True(t, ok)
				s.reclaim(j)
			}
			require.NoError(t, s.SetConfig(Config{MaxTenants: 5, IdleTimeout: time.Hour}))
			last := -1 // the table's last occupied slot
			for i := range s.tenants.slots {
				if s.tenants.slots[i].h != 0 {
					last = i
				}
			}
			recent := s.tenants.slots[last].key()
			s.Admit(t0.Add(50*time.Millisecond), recent, 0, 1) // seen last of all
			oldest := names[0]
			if recent == oldest {
				oldest = names[1]
			}
			s.hand = last // the next sample starts at the table's last tenant
			size := len(s.tenants.slots)
			s.Admit(t0.Add(60*time.Millisecond), "new", 0, 1)
			t.Logf("table of %d slots, then %d", size, len(s.tenants.slots))
			require.Equal(t, 5, s.Stats().Tenants)
			require.NotNil(t, s.tenants.get(recent), "tenant %s, seen 10 ms ago, evicted while %s, seen 60 ms ago, is kept", recent, oldest)
			require.Nil(t, s.tenants.get(oldest), "the least recently seen tenant is kept")
			for _, n := range append(names, "new") {
				require.Equal(t, n != oldest, s.tenants.get(n) != nil, "tenant %s", n)
			}
		})
	}
}
