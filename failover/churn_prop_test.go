package failover_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// subTier returns the regions of pool that keep[i] selects, with ring backups
// to regions left out dropped (a ring may name only regions of the tier).
func subTier(pool failover.Config, keep []bool) failover.Config {
	cfg := failover.Config{Tier: pool.Tier}
	in := map[string]bool{}
	for i, reg := range pool.Regions {
		in[reg.Name] = keep[i]
	}
	for i, reg := range pool.Regions {
		if !keep[i] {
			continue
		}
		reg.Ring = slices.DeleteFunc(slices.Clone(reg.Ring), func(b failover.Backup) bool { return !in[b.Region] })
		cfg.Regions = append(cfg.Regions, reg)
	}
	return cfg
}

// routeSet is a table's routes without their shares: what Stats.RouteChanges counts.
func routeSet(tab failover.Table) map[failover.Route]bool {
	s := map[failover.Route]bool{}
	for _, rt := range tab.Routes {
		rt.Share = 0
		s[rt] = true
	}
	return s
}

// TestPropRegionChurn drives random tiers whose membership and knobs change
// between runs (SetConfig adds and removes regions, turns knobs on and off) and
// checks what doc.go and SetConfig promise under churn: every table holds the
// invariants of the tier in force; SpillStarts - SpillEnds is the Spilling gauge
// after every SetConfig and every run; RouteChanges counts exactly the routes
// turned on or off between consecutive tables; a region that stays keeps its
// state (its share falls by at most DownStep per run, not sooner than MinHold
// runs after a rise); and two routers given the same sequence agree.
func TestPropRegionChurn(t *testing.T) {
	for seed := range uint64(30) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 17))
			pool := genConfig(rng)
			keep := make([]bool, len(pool.Regions))
			for i := range keep {
				keep[i] = true
			}
			cfg := subTier(pool, keep)
			r1, r2 := mustNew(t, cfg), mustNew(t, cfg)
			w := newWalker(rng, len(pool.Regions))
			balanced := func(when string) {
				st := r1.Stats()
				require.Equal(t, int64(st.SpillStarts)-int64(st.SpillEnds), int64(st.Spilling), "%s: %+v", when, st)
			}
			prev := map[string]float64{}
			rose := map[string]int{}
			var last failover.Table
			for run := 1; run <= 200; run++ {
				if rng.IntN(6) == 0 { // churn
					next := slices.Clone(keep)
					j := rng.IntN(len(next))
					next[j] = !next[j]
					if i := rng.IntN(len(pool.Regions)); rng.IntN(3) == 0 {
						pool.Regions[i].Knobs = failover.Knobs{Ring: genKnob(rng), Mega: genKnob(rng), Global: genKnob(rng)}
					}
					if slices.Contains(next, true) {
						keep = next
					}
					cfg = subTier(pool, keep)
					require.NoError(t, r1.SetConfig(cfg))
					require.NoError(t, r2.SetConfig(cfg))
					balanced(fmt.Sprintf("run %d, after SetConfig", run))
					for name := range prev {
						if !slices.ContainsFunc(cfg.Regions, func(x failover.Region) bool { return x.Name == name }) {
							delete(prev, name) // its state is gone: it comes back fresh
							delete(rose, name)
						}
					}
				}
				var ls []failover.Load
				for _, l := range w.next(pool, true) {
					if i := slices.IndexFunc(pool.Regions, func(x failover.Region) bool { return x.Name == l.Region }); keep[i] {
						ls = append(ls, l)
					}
				}
				before := r1.Stats()
				tab, err := r1.Step(t0, ls)
				require.NoError(t, err)
				tab2, err := r2.Step(t0, ls)
				require.NoError(t, err)
				require.True(t, reflect.DeepEqual(tab, tab2), "run %d: two routers disagree", run)
				checkTable(t, cfg, ls, tab)
				balanced(fmt.Sprintf("run %d", run))
				st := r1.Stats()
				spilling := 0
				for _, d := range tab.Regions {
					spilling += int(btoi(d.Phase == failover.Spilling))
				}
				require.Equal(t, spilling, st.Spilling, "run %d", run)
				changed := 0
				was, now := routeSet(last), routeSet(tab)
				for rt := range now {
					changed += int(btoi(!was[rt]))
				}
				for rt := range was {
					changed += int(btoi(!now[rt]))
				}
				require.Equal(t, before.RouteChanges+uint64(changed), st.RouteChanges, "run %d", run)
				last = tab
				for i, d := range tab.Regions {
					p := prev[d.Name]
					switch {
					case d.Want > p:
						rose[d.Name] = run
					case d.Want < p && cfg.Regions[i].Knobs != (failover.Knobs{}): // zero knobs end a spill at once
						require.LessOrEqual(t, p-d.Want, 0.02+1e-12, "run %d %s: share fell from %v to %v", run, d.Name, p, d.Want)
						require.GreaterOrEqual(t, run-rose[d.Name], 15, "run %d %s: share fell %d runs after a rise", run, d.Name, run-rose[d.Name])
					}
					prev[d.Name] = d.Want
				}
			}
		})
	}
}

func btoi(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
