package shed

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSetConfigVisitsOnlyWhatChangesEdges is TestSetConfigVisitsOnlyWhatChanges
// with what it leaves out: SetConfigs that lower (and raise) MaxTenants, so
// that setConfig itself reclaims marked tenants before it visits the marked
// list; three priorities (buckets not inline); removals by handle; refusals
// that mark a tenant again and again; and tenants reclaimed and created again
// under the same name. After each operation every tenant with requests queued
// must be listed (the deadline cut visits only the listed ones), and marked
// must hold exactly the kept tenants ever marked.
func TestSetConfigVisitsOnlyWhatChangesEdges(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { runVisitEdges(t, seed) })
	}
}

func runVisitEdges(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	cfg := Config{Capacity: Fixed(4), Priorities: 3, MaxQueue: 3, MaxTenants: 12, IdleTimeout: 2 * time.Millisecond}
	s, err := NewScheduler[int](cfg)
	require.NoError(t, err)
	now := time.Unix(0, 0)
	names := make([]string, 30)
	for i := range names {
		names[i] = fmt.Sprintf("t%d", i)
	}
	var handles []Handle[int]
	for step := range 8_000 {
		now = now.Add(time.Duration(rng.IntN(300)) * time.Microsecond)
		name := names[rng.IntN(len(names))]
		switch r := rng.IntN(100); {
		case r < 40:
			if h, _, err := s.Push(now, name, rng.IntN(4)-1, int64(1+rng.IntN(3)), step); err == nil {
				handles = append(handles, h)
			}
		case r < 60:
			s.Pop(now, int64(rng.IntN(4)), nil)
		case r < 68:
			if len(handles) > 0 {
				s.Remove(now, handles[rng.IntN(len(handles))], Reason(rng.IntN(4)))
			}
		case r < 76:
			s.Admit(now, name, rng.IntN(3), 1)
		case r < 84:
			s.Refuse(now, name, rng.IntN(3), Reason(1+rng.IntN(2)))
		case r < 88:
			s.Expire(now, nil)
		default:
			cfg = randomConfig(rng, cfg, names)
			cfg.MaxTenants = 1 + rng.IntN(16)
			want := eagerSetConfig(s, cfg)
			require.NoError(t, s.SetConfig(cfg))
			checkAgainst(t, s, want)
		}
		checkMarked(t, s)
		checkQueuedListed(t, s)
	}
	require.NotZero(t, s.reclaimed, "no tenant was reclaimed")
}

// checkQueuedListed checks that every kept tenant with requests queued is on
// a drain list, and that the lists hold only kept tenants.
func checkQueuedListed(t *testing.T, s *Scheduler[int]) {
	t.Helper()
	listed := map[*tenantState[int]]bool{}
	for _, l := range [...]*tenantList[int]{&s.fresh, &s.old} {
		for x := l.head; x != nil; x = x.rnext {
			listed[x] = true
		}
	}
	n := 0
	for i := range s.tenants.slots {
		sl := &s.tenants.slots[i]
		if sl.h == 0 {
			continue
		}
		if listed[sl.t] {
			n++
		}
		if sl.t.queued > 0 {
			require.True(t, listed[sl.t], "tenant %s has %d queued, not listed", sl.key(), sl.t.queued)
		}
	}
	require.Len(t, listed, n, "a listed tenant is not kept")
}

// TestSetConfigMarkedReclaimedRecreated: a marked tenant reclaimed by a
// SetConfig that lowers MaxTenants, created again under its name and marked
// again, is in marked once, as the new state; the tenant that moved into the
// reclaimed one's place keeps its mark cut by a shorter window.
func TestSetConfigMarkedReclaimedRecreated(t *testing.T) {
	cfg := Config{Capacity: Fixed(1), MaxTenants: 10, IdleTimeout: time.Hour, OverShareWindow: time.Second}
	s, err := NewScheduler[int](cfg)
	require.NoError(t, err)
	now := time.Unix(0, 0)
	for _, n := range []string{"a", "b", "c"} {
		s.Refuse(now, n, 0, ReasonBucketFull)
		now = now.Add(10 * time.Millisecond)
	}
	require.Len(t, s.marked, 3)
	oldA := s.tenants.get("a").t
	// "a" is seen least recently: MaxTenants 2 reclaims it.
	cfg.MaxTenants = 2
	require.NoError(t, s.SetConfig(cfg))
	require.Nil(t, s.tenants.get("a"))
	require.Zero(t, oldA.marked)
	checkMarked(t, s)
	cfg.MaxTenants = 10
	cfg.OverShareWindow = 100 * time.Millisecond
	require.NoError(t, s.SetConfig(cfg))
	s.Refuse(now, "a", 0, ReasonQueueDeadline)
	s.Refuse(now, "a", 0, ReasonQueueDeadline) // marked twice: listed once
	checkMarked(t, s)
	newA := s.tenants.get("a").t
	require.NotSame(t, oldA, newA)
	require.Len(t, s.marked, 3)
	cfg.OverShareWindow = 10 * time.Millisecond
	require.NoError(t, s.SetConfig(cfg))
	at := int64(now.Sub(time.Unix(0, 0)))
	require.Equal(t, at+int64(10*time.Millisecond), newA.overUntil)
	for _, n := range []string{"b", "c"} {
		x := s.tenants.get(n).t
		require.Equal(t, x.overAt+int64(10*time.Millisecond), x.overUntil, n)
	}
}
