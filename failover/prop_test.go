package failover_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// Property tests: random tiers (regions, mega-regions, rings, knobs) driven by random
// load sequences (ramps, noise, outages, missing reports, hot hosts that disagree
// with demand), with every table checked against the invariants doc.go promises.

// genConfig returns a random valid tier.
func genConfig(rng *rand.Rand) failover.Config {
	n := 2 + rng.IntN(7)
	cfg := failover.Config{Tier: "p"}
	megas := []string{"", "east", "west"}
	for i := range n {
		cfg.Regions = append(cfg.Regions, failover.Region{
			Name:  fmt.Sprint("r", i),
			Mega:  megas[rng.IntN(len(megas))],
			Knobs: failover.Knobs{Ring: genKnob(rng), Mega: genKnob(rng), Global: genKnob(rng)},
		})
	}
	for i := range cfg.Regions {
		for _, j := range rng.Perm(n)[:rng.IntN(min(n, 4))] {
			if j != i {
				cfg.Regions[i].Ring = append(cfg.Regions[i].Ring,
					failover.Backup{Region: cfg.Regions[j].Name, Weight: 0.1 + 100*rng.Float64()})
			}
		}
	}
	return cfg
}

func genKnob(rng *rand.Rand) float64 {
	switch rng.IntN(4) {
	case 0:
		return 0
	case 1:
		return 100
	}
	return 100 * rng.Float64()
}

// walker produces a random load sequence for a tier: each region's utilization
// follows a random walk with occasional jumps, outages and missing reports.
type walker struct {
	rng  *rand.Rand
	util []float64
	cap  []float64
	skew []float64 // host-CPU spread
	hot  []bool    // hosts hotter than demand says (co-tenant)
}

func newWalker(rng *rand.Rand, n int) *walker {
	w := &walker{rng: rng}
	for range n {
		w.util = append(w.util, 0.2+0.8*rng.Float64())
		w.cap = append(w.cap, 100+1e4*rng.Float64())
		w.skew = append(w.skew, 0.3*rng.Float64())
		w.hot = append(w.hot, rng.IntN(5) == 0)
	}
	return w
}

func (w *walker) next(cfg failover.Config, move bool) []failover.Load {
	var out []failover.Load
	for i, reg := range cfg.Regions {
		if move {
			w.util[i] = math.Max(0, w.util[i]+0.03*w.rng.NormFloat64())
			if w.rng.IntN(30) == 0 {
				w.util[i] = 1.3 * w.rng.Float64()
			}
		}
		if move && w.rng.IntN(40) == 0 {
			continue // missing report
		}
		l := failover.Load{Region: reg.Name, Demand: w.util[i] * w.cap[i], Capacity: w.cap[i]}
		if move && w.rng.IntN(50) == 0 {
			l.Capacity = 0 // down
		}
		if w.rng.IntN(8) != 0 {
			l.HostCPU = make([]float64, 5+i)
			for h := range l.HostCPU {
				l.HostCPU[h] = w.util[i] * (1 - w.skew[i]/2 + w.skew[i]*float64(h)/float64(len(l.HostCPU)))
				if w.hot[i] && h%3 == 0 {
					l.HostCPU[h] = 0.95
				}
			}
		}
		out = append(out, l)
	}
	return out
}

// checkTable checks one table's invariants against its config and input.
func checkTable(t *testing.T, cfg failover.Config, ls []failover.Load, tab failover.Table) {
	t.Helper()
	c := cfg
	for _, s := range []*float64{&c.ReceiverMax} {
		if *s == 0 {
			*s = 0.75
		}
	}
	reg := map[string]failover.Region{}
	for _, r := range cfg.Regions {
		reg[r.Name] = r
	}
	load := map[string]failover.Load{}
	for _, l := range ls {
		load[l.Region] = l
	}
	dec := map[string]failover.RegionDecision{}
	require.Len(t, tab.Regions, len(cfg.Regions))
	for i, d := range tab.Regions {
		require.Equal(t, cfg.Regions[i].Name, d.Name)
		dec[d.Name] = d
	}
	require.True(t, slices.IsSortedFunc(tab.Routes, func(a, b failover.Route) int {
		return cmpRoute(a, b)
	}), "routes out of order: %+v", tab.Routes)
	sum := map[string]float64{}
	for i, rt := range tab.Routes {
		if i > 0 {
			require.NotZero(t, cmpRoute(tab.Routes[i-1], rt), "route twice: %+v", rt)
		}
		from, to := reg[rt.From], load[rt.To]
		require.NotEqual(t, rt.From, rt.To)
		require.True(t, rt.Share > 0 && rt.Share <= 1, "share %v", rt.Share)
		require.Equal(t, failover.Spilling, dec[rt.From].Phase, "%+v", rt)
		require.Equal(t, failover.Local, dec[rt.To].Phase, "%+v", rt)
		require.Greater(t, to.Capacity, 0.0, "route to a down region: %+v", rt)
		switch rt.Mechanism {
		case failover.MechRing:
			require.Greater(t, from.Knobs.Ring, 0.0)
			require.True(t, slices.ContainsFunc(from.Ring, func(b failover.Backup) bool { return b.Region == rt.To }), "%+v", rt)
		case failover.MechMega:
			require.Greater(t, from.Knobs.Mega, 0.0)
			require.NotEmpty(t, from.Mega)
			require.Equal(t, from.Mega, reg[rt.To].Mega, "%+v", rt)
		case failover.MechGlobal:
			require.Greater(t, from.Knobs.Global, 0.0)
		default:
			t.Fatalf("mechanism %v", rt.Mechanism)
		}
		sum[rt.From] += rt.Share
	}
	for _, d := range tab.Regions {
		require.LessOrEqual(t, sum[d.Name], 1+1e-9)
		require.InDelta(t, sum[d.Name], d.Out, 1e-9, "%s", d.Name)
		require.True(t, d.Want >= 0 && d.Want <= 1, "%s: want %v", d.Name, d.Want)
		require.LessOrEqual(t, d.Out, d.Want+1e-9, "%s", d.Name)
		require.GreaterOrEqual(t, d.Unplaced, -1e-9, "%s", d.Name)
		require.LessOrEqual(t, d.Out+d.Unplaced, d.Want+1e-9, "%s", d.Name)
		require.GreaterOrEqual(t, d.In, 0.0)
		switch d.Phase {
		case failover.Local:
			require.Zero(t, d.Want, "%s", d.Name)
			require.Zero(t, d.Out, "%s", d.Name)
		case failover.Spilling:
			require.Zero(t, d.In, "a spilling region receives: %s", d.Name)
		default:
			t.Fatalf("%s: phase %v", d.Name, d.Phase)
		}
		// a receiver is filled only up to ReceiverMax at its imbalance
		if d.In > 0 {
			k := 1.0
			if d.Signal.Mean > 0 {
				k = math.Max(1, d.Signal.P/d.Signal.Mean)
			}
			head := math.Max(0, c.ReceiverMax-d.Signal.Projected)
			require.LessOrEqual(t, d.In*k, head+1e-9, "%s: %+v", d.Name, d)
		}
	}
}

func cmpRoute(a, b failover.Route) int {
	switch {
	case a.From != b.From:
		return map[bool]int{true: -1, false: 1}[a.From < b.From]
	case a.To != b.To:
		return map[bool]int{true: -1, false: 1}[a.To < b.To]
	}
	return int(a.Mechanism) - int(b.Mechanism)
}

// checkWire: the table survives JSON and NewTable, and picks alike.
func checkWire(t *testing.T, tab failover.Table) {
	t.Helper()
	data, err := json.Marshal(tab)
	require.NoError(t, err)
	var back failover.Table
	require.NoError(t, json.Unmarshal(data, &back), "%s", data)
	require.Equal(t, tab.Routes, back.Routes)
	require.Equal(t, tab.Run, back.Run)
	require.True(t, tab.Now.Equal(back.Now))
	want := slices.Clone(tab.Regions)
	for i := range want { // documented: infinities travel as the largest finite value
		s := &want[i].Signal
		for _, x := range []*float64{&s.Home, &s.Projected} {
			if math.IsInf(*x, 0) {
				*x = math.Copysign(math.MaxFloat64, *x)
			}
		}
	}
	require.Equal(t, want, back.Regions)
	nt, err := failover.NewTable(tab.Now, tab.Run, tab.Routes)
	require.NoError(t, err)
	require.Equal(t, tab.Routes, nt.Routes)
	for i := range 50 {
		u := strconv.Itoa(i)
		for _, d := range tab.Regions {
			require.Equal(t, tab.Pick(d.Name, u), back.Pick(d.Name, u))
		}
	}
}

// TestPropTables drives random tiers with random loads and checks every table, the
// wire round trip, determinism (a second router on the same input returns the same
// tables) and the hysteresis of the share: it falls by at most DownStep per run, and
// not sooner than MinHold runs after it last rose.
func TestPropTables(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			cfg := genConfig(rng)
			r1, r2 := mustNew(t, cfg), mustNew(t, cfg)
			w := newWalker(rng, len(cfg.Regions))
			prev := map[string]float64{}
			rose := map[string]int{}
			for run := 1; run <= 150; run++ {
				ls := w.next(cfg, true)
				tab, err := r1.Step(t0, ls)
				require.NoError(t, err)
				tab2, err := r2.Step(t0, ls)
				require.NoError(t, err)
				require.True(t, reflect.DeepEqual(tab, tab2), "run %d: two routers disagree", run)
				checkTable(t, cfg, ls, tab)
				if run%25 == 0 {
					checkWire(t, tab)
				}
				for _, d := range tab.Regions {
					p := prev[d.Name]
					switch {
					case d.Want > p:
						rose[d.Name] = run
					case d.Want < p:
						require.LessOrEqual(t, p-d.Want, 0.02+1e-12, "run %d %s: share fell from %v to %v", run, d.Name, p, d.Want)
						require.GreaterOrEqual(t, run-rose[d.Name], 15, "run %d %s: share fell %d runs after a rise", run, d.Name, run-rose[d.Name])
					}
					prev[d.Name] = d.Want
				}
			}
		})
	}
}

// TestPropSteadyInputSteadyTable: the same loads, run after run, settle into one
// table: after a warm-up, no route turns on or off and no share moves.
func TestPropSteadyInputSteadyTable(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 11))
		cfg := genConfig(rng)
		r := mustNew(t, cfg)
		ls := newWalker(rng, len(cfg.Regions)).next(cfg, false)
		var last failover.Table
		for run := 1; run <= 100; run++ {
			tab, err := r.Step(t0, ls)
			require.NoError(t, err)
			checkTable(t, cfg, ls, tab)
			if run > 60 {
				require.Equal(t, last.Routes, tab.Routes, "seed %d run %d: steady input, table changed", seed, run)
				for i, d := range tab.Regions {
					require.Equal(t, last.Regions[i].Phase, d.Phase, "seed %d run %d %s: %s", seed, run, d.Name, d.Reason)
				}
			}
			last = tab
		}
	}
}

// TestPropScaleFree: multiplying every region's demand and capacity by one factor
// changes no share (the signal reads utilization, not rates).
func TestPropScaleFree(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 13))
		cfg := genConfig(rng)
		r1, r2 := mustNew(t, cfg), mustNew(t, cfg)
		w := newWalker(rng, len(cfg.Regions))
		for run := range 40 {
			ls := w.next(cfg, true)
			scaled := slices.Clone(ls)
			for i := range scaled {
				scaled[i].Demand *= 1024
				scaled[i].Capacity *= 1024
			}
			a, err := r1.Step(t0, ls)
			require.NoError(t, err)
			b, err := r2.Step(t0, scaled)
			require.NoError(t, err)
			require.Equal(t, a.Routes, b.Routes, "seed %d run %d", seed, run)
		}
	}
}
