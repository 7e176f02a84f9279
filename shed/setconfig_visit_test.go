package shed

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSetConfigVisitsOnlyWhatChanges: SetConfig visits only the tenants named
// in the old or new Weights, those ever marked over their share, and the
// listed ones; after each of a random sequence of operations with SetConfigs
// among them, every kept tenant is as a walk over all of them left it (the
// weight in force, its mark cut to the shortest window since it was made, its
// queued requests' deadlines cut), and marked holds exactly the marked ones.
func TestSetConfigVisitsOnlyWhatChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 62))
	cfg := Config{Capacity: Fixed(4), MaxQueue: 4, MaxTenants: 24, IdleTimeout: 5 * time.Millisecond}
	s, err := NewScheduler[int](cfg)
	require.NoError(t, err)
	epoch := time.Unix(0, 0)
	now := epoch
	names := make([]string, 40)
	for i := range names {
		names[i] = fmt.Sprintf("t%d", i)
	}
	for step := range 20_000 {
		now = now.Add(time.Duration(rng.IntN(400)) * time.Microsecond)
		name := names[rng.IntN(len(names))]
		switch r := rng.IntN(100); {
		case r < 45:
			_, _, _ = s.Push(now, name, rng.IntN(3), int64(1+rng.IntN(3)), step)
		case r < 75:
			s.Pop(now, int64(rng.IntN(4)), nil)
		case r < 85:
			s.Admit(now, name, 0, 1)
		case r < 90:
			s.Refuse(now, name, 0, ReasonBucketFull)
		case r < 93:
			s.Expire(now, nil)
		default:
			cfg = randomConfig(rng, cfg, names)
			want := eagerSetConfig(s, cfg)
			require.NoError(t, s.SetConfig(cfg))
			checkAgainst(t, s, want)
		}
		checkMarked(t, s)
	}
}

// randomConfig changes cfg's weights, window and deadlines at random.
func randomConfig(rng *rand.Rand, cfg Config, names []string) Config {
	cfg.Weights = map[string]int{}
	for range rng.IntN(6) {
		cfg.Weights[names[rng.IntN(len(names))]] = 1 + rng.IntN(4)
	}
	cfg.OverShareWindow = time.Duration(1+rng.IntN(20)) * time.Millisecond
	cfg.QueueDeadline = time.Duration(1+rng.IntN(30)) * time.Millisecond
	cfg.StandingDeadline = time.Duration(1+rng.IntN(30)) * time.Millisecond
	cfg.StandingDeadline = min(cfg.StandingDeadline, cfg.QueueDeadline)
	return cfg
}

// tenantWant is what a walk over every tenant leaves of one.
type tenantWant struct {
	weight, overUntil int64
	dls               [][]int64
}

// eagerSetConfig returns, by tenant, what SetConfig(cfg) leaves, computed the
// way it was before it visited only what changes: every kept tenant, in turn.
func eagerSetConfig(s *Scheduler[int], cfg Config) map[*tenantState[int]]tenantWant {
	c, err := cfg.validate()
	if err != nil {
		panic(err)
	}
	s.settle()
	cut := s.queued > 0 && (c.queueDeadline < s.cfg.queueDeadline || c.standingDeadline < s.cfg.standingDeadline)
	want := map[*tenantState[int]]tenantWant{}
	for i := range s.tenants.slots {
		sl := &s.tenants.slots[i]
		if sl.h == 0 {
			continue
		}
		w := tenantWant{weight: c.weight(sl.key()), overUntil: sl.t.overUntil}
		if c.overShareWindow < s.cfg.overShareWindow {
			w.overUntil = min(w.overUntil, satAdd(sl.t.overAt, c.overShareWindow))
		}
		for p := range sl.t.buckets {
			var dls []int64
			ahead := int64(math.MinInt64)
			for n := sl.t.buckets[p].head; n != nil; n = n.next {
				dl := n.dl
				if cut {
					d := c.queueDeadline
					if n.standing {
						d = c.standingDeadline
					}
					dl = max(min(n.dl, satAdd(n.enq, d)), ahead)
				}
				dls = append(dls, dl)
				ahead = dl
			}
			w.dls = append(w.dls, dls)
		}
		want[sl.t] = w
	}
	return want
}

// checkAgainst checks every tenant still kept against want (a lowered
// MaxTenants may have reclaimed some).
func checkAgainst(t *testing.T, s *Scheduler[int], want map[*tenantState[int]]tenantWant) {
	t.Helper()
	for i := range s.tenants.slots {
		sl := &s.tenants.slots[i]
		if sl.h == 0 {
			continue
		}
		w, ok := want[sl.t]
		require.True(t, ok, "tenant %s", sl.key())
		require.Equal(t, w.weight, sl.t.weight, "weight of %s", sl.key())
		require.Equal(t, w.overUntil, sl.t.overUntil, "overUntil of %s", sl.key())
		for p := range sl.t.buckets {
			var dls []int64
			for n := sl.t.buckets[p].head; n != nil; n = n.next {
				dls = append(dls, n.dl)
			}
			require.Equal(t, w.dls[p], dls, "deadlines of %s, priority %d", sl.key(), p)
		}
	}
}

// checkMarked checks that marked holds exactly the kept tenants ever marked,
// each at the index it records.
func checkMarked(t *testing.T, s *Scheduler[int]) {
	t.Helper()
	n := 0
	for i := range s.tenants.slots {
		sl := &s.tenants.slots[i]
		if sl.h == 0 {
			continue
		}
		if sl.t.overAt == math.MinInt64 {
			require.Zero(t, sl.t.marked, "tenant %s", sl.key())
			continue
		}
		n++
		require.NotZero(t, sl.t.marked, "tenant %s", sl.key())
		require.Same(t, sl.t, s.marked[sl.t.marked-1], "tenant %s", sl.key())
	}
	require.Len(t, s.marked, n)
}
