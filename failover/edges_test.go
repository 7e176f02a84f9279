package failover_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// Found in a review: aliasing, non-finite and overflowing weights, rounding
// dust, a missing report read as a ramp, a hot-host firing that shed
// nothing, a down region's table that JSON could not carry, and asymmetric
// route-change counting.

// Config must return a copy: editing the returned Ring must not change the router.
func TestConfigRingIsCopied(t *testing.T) {
	r := mustNew(t, six())
	c := r.Config()
	c.Regions[1].Ring[0].Weight = -5 // a2's ring, a1 backup
	c.Regions[1].Ring[0].Region = "nope"
	got := r.Config().Regions[1].Ring[0]
	require.Equal(t, failover.Backup{Region: "a1", Weight: 70}, got)
}

// Validate must reject a ring weight that makes the shares NaN.
func TestRingWeightInfinite(t *testing.T) {
	for _, w := range [][2]float64{{1e308, 1e308}, {math.Inf(1), 1}} {
		cfg := six()
		cfg.Regions[1].Ring[0].Weight = w[0]
		cfg.Regions[1].Ring[1].Weight = w[1]
		r, err := failover.New(cfg)
		if err != nil {
			continue // rejected: fine
		}
		tab, err := r.Step(t0, loads(0.5, map[string]float64{"a2": 0.95}))
		require.NoError(t, err)
		for _, rt := range tab.Routes {
			require.False(t, math.IsNaN(rt.Share), "weights %v: route %+v", w, rt)
		}
		for _, d := range tab.Regions {
			require.False(t, math.IsNaN(d.Unplaced) || math.IsNaN(d.In) || math.IsNaN(d.Out), "weights %v: %+v", w, d)
		}
	}
}

// A region that is down (Capacity 0) with demand is a documented input; the table
// Step returns for it must still encode to JSON for publication.
func TestDownRegionTableMarshals(t *testing.T) {
	r := mustNew(t, six())
	ls := loads(0.5, nil)
	ls[1].Capacity = 0 // a2 down, demand 500
	ls[1].HostCPU = nil
	tab, err := r.Step(t0, ls)
	require.NoError(t, err)
	require.NotEmpty(t, tab.Routes)
	_, err = json.Marshal(tab)
	require.NoError(t, err)
}

// Fired by hot hosts alone (projected below Target): the code means to "shed a little"
// (want = DownStep), but with the defaults DownStep == MinChange so the rise is never
// published: the region is Spilling with Want 0 and no routes.
func TestHotFireSheds(t *testing.T) {
	r := mustNew(t, six())
	ls := loads(0.5, nil)
	// a1: demand 0.4 of capacity -> home p90 0.4*0.9/0.655 = 0.55 < Target 0.75,
	// but 30% of hosts above HotCPU 0.85 (> HotShare 0.2).
	h := make([]float64, 20)
	for i := range h {
		h[i] = 0.55
	}
	for i := 14; i < 20; i++ {
		h[i] = 0.9
	}
	ls[0] = failover.Load{Region: "a1", Demand: 400, Capacity: 1000, HostCPU: h}
	tab, err := r.Step(t0, ls)
	require.NoError(t, err)
	d := decision(tab, "a1")
	t.Logf("a1: %+v", d)
	require.Equal(t, failover.Spilling, d.Phase)
	require.Greater(t, d.Want, 0.0, "fired on hot hosts but wants nothing")
	require.NotEmpty(t, tab.Out("a1"))
}

// TestHotFireShedsAboveTarget: a region fired by its hot hosts whose projected
// home percentile is a little above Target wants less than MinChange (0.76 ->
// 1 - 0.75/0.76 = 0.013). The hot fire set its share only for a want of exactly 0,
// and the rise rule drops rises below MinChange, so the region went Spilling with
// a share of 0: it shed nothing and, spilling, refused spill for MinHold runs.
func TestHotFireShedsAboveTarget(t *testing.T) {
	r := mustNew(t, six())
	ls := loads(0.5, nil)
	h := make([]float64, 20)
	for i := range h {
		h[i] = 0.55
	}
	for i := 14; i < 20; i++ {
		h[i] = 0.9 // 30% of hosts above HotCPU
	}
	// k = p90/mean = 0.9/0.655: Home = 0.553 x k = 0.76
	ls[0] = failover.Load{Region: "a1", Demand: 553, Capacity: 1000, HostCPU: h}
	tab, err := r.Step(t0, ls)
	require.NoError(t, err)
	d := decision(tab, "a1")
	require.Equal(t, failover.Spilling, d.Phase, d.Reason)
	require.InDelta(t, 0.76, d.Signal.Projected, 0.005)
	assert.GreaterOrEqual(t, d.Want, 0.02, "fired on hot hosts but wants %v", d.Want)
	assert.NotEmpty(t, tab.Out("a1"))
}

// Finite but large ring weights: total*Weight overflows before the division by the
// weight sum, so a backup is given its whole headroom instead of its proportion.
func TestRingHugeWeightNoOvergive(t *testing.T) {
	cfg := six()
	cfg.Regions[1].Ring[0].Weight = 1e306 // a1
	cfg.Regions[1].Ring[1].Weight = 1     // a3
	r := mustNew(t, cfg)
	tab, err := r.Step(t0, loads(0.5, map[string]float64{"a1": 0.1, "a2": 0.95}))
	require.NoError(t, err)
	d := decision(tab, "a2")
	t.Logf("a2: want %.3f out %.3f unplaced %.3f routes %+v", d.Want, d.Out, d.Unplaced, tab.Out("a2"))
	require.LessOrEqual(t, d.Out, d.Want+1e-9)
	require.GreaterOrEqual(t, d.Unplaced, -1e-9)
}

// A region missing from one run's loads is "treated as down (Capacity 0, no demand)".
// Its Home drops to 0 for that run, so when its report comes back the trend reads the
// 0 -> 0.7 jump as a demand ramp and the region fires failover at steady load.
func TestMissingReportDoesNotFire(t *testing.T) {
	r := mustNew(t, six())
	for range 10 {
		_, err := r.Step(t0, loads(0.65, nil))
		require.NoError(t, err)
	}
	ls := loads(0.65, nil)
	_, err := r.Step(t0, append(ls[:1:1], ls[2:]...)) // a2's report is missing once
	require.NoError(t, err)
	tab, err := r.Step(t0, loads(0.65, nil)) // back, same steady load
	require.NoError(t, err)
	d := decision(tab, "a2")
	t.Logf("a2: %+v", d)
	require.Equal(t, failover.Local, d.Phase, "steady region spills after one missing report")
}

// TestRingSplitLeavesNoDust: when the ring has room for the whole spill, the
// rounding residue of the weighted split is not spread over the mega-region
// as routes of 1e-18 (which also counted as route changes).
func TestRingSplitLeavesNoDust(t *testing.T) {
	found := 0
	for _, ws := range [][]float64{{70, 30}, {1, 1}, {1, 2}, {3, 7}, {0.1, 0.2}} {
		cfg := six()
		cfg.Regions[1].Ring = []failover.Backup{{Region: "a1", Weight: ws[0]}, {Region: "a3", Weight: ws[1]}}
		for u := 0.80; u < 1.0; u += 0.001 {
			r := mustNew(t, cfg)
			tab, _ := r.Step(t0, loads(0.4, map[string]float64{"a2": u}))
			for _, rt := range tab.Out("a2") {
				if rt.Mechanism != failover.MechRing {
					found++
					if found < 5 {
						t.Logf("weights %v u %.3f: dust route %+v", ws, u, rt)
					}
				}
			}
		}
	}
	if found > 0 {
		t.Errorf("%d non-ring routes while the ring had room", found)
	}
}

// TestRouteChangesSymmetric: routes on and off count alike when one region
// spills to one receiver by two mechanisms (ring and mega).
func TestRouteChangesSymmetric(t *testing.T) {
	r := mustNew(t, six())
	// a2 spills; its ring backup a3 is nearly full, so the rest goes to a1 by mega too.
	tab, err := r.Step(t0, loads(0.3, map[string]float64{"a2": 0.95, "a3": 0.70}))
	require.NoError(t, err)
	out := tab.Out("a2")
	t.Logf("routes: %+v", out)
	require.Len(t, out, 3)
	on := r.Stats().RouteChanges
	assert.Equal(t, uint64(3), on)
	// a2's demand drops to 0: every route of a2 goes away.
	ls := loads(0.3, map[string]float64{"a3": 0.70})
	ls[1].Demand = 0
	tab, err = r.Step(t0, ls)
	require.NoError(t, err)
	require.Empty(t, tab.Out("a2"))
	assert.Equal(t, 2*on, r.Stats().RouteChanges, "3 routes on, 3 routes off")
}

// Config must not alias the Router's internal Config: SetConfig deep-copies the
// rings, Config only copies the Regions slice.

// TestHotHostsDoNotFlap: hot hosts at a steady, low home load fire failover; the
// region then wound its share down, recovered after MinHold runs with the hosts still
// hot, and fired again on the next run: on, off, on every 16 runs for a steady input.
func TestHotHostsDoNotFlap(t *testing.T) {
	r := mustNew(t, six())
	ls := loads(0.5, nil)
	h := make([]float64, 20) // 30% of hosts above HotCPU, home p90 0.55
	for i := range h {
		h[i] = 0.55
		if i >= 14 {
			h[i] = 0.9
		}
	}
	ls[0] = failover.Load{Region: "a1", Demand: 400, Capacity: 1000, HostCPU: h}
	for run := 1; run <= 60; run++ {
		tab, err := r.Step(t0, ls)
		require.NoError(t, err)
		require.NotEmpty(t, tab.Out("a1"), "run %d: %s", run, decision(tab, "a1").Reason)
	}
	st := r.Stats()
	assert.Equal(t, uint64(1), st.SpillStarts)
	assert.Zero(t, st.SpillEnds)
}

// TestNoZeroShareRoute: a receiver's room can be so small against the sender's demand
// that the route's share underflows to 0; Step published it, and the table it
// returned failed to decode (NewTable and UnmarshalJSON reject a zero share).
func TestNoZeroShareRoute(t *testing.T) {
	r := mustNew(t, six())
	ls := loads(0.5, map[string]float64{"a2": 0.95})
	ls[1].Demand, ls[1].Capacity = 0.95e300, 1e300
	ls[0].Demand, ls[0].Capacity = 0.3e-30, 1e-30 // a1: room 4.5e-31
	tab, err := r.Step(t0, ls)
	require.NoError(t, err)
	require.NotEmpty(t, tab.Out("a2"))
	for _, rt := range tab.Routes {
		require.Greater(t, rt.Share, 0.0, "%+v", rt)
	}
	data, err := json.Marshal(tab)
	require.NoError(t, err)
	var back failover.Table
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, tab.Routes, back.Routes)
}

// TestFilledReceiverGetsNoDust: when a mechanism fills a receiver to its room, the
// room it leaves is exactly 0. It was x - x*100/100 or x - total*(x/total), an ulp
// that the next mechanism gave out again: a3, already full from the ring and the
// mega-region, also got a global route of share ~1e-19 (and a route change).
func TestFilledReceiverGetsNoDust(t *testing.T) {
	tests := []struct {
		name   string
		others float64 // utilization of every region but a2
		a2     float64
	}{
		{"others 0.6, a2 0.96", 0.6, 0.96},
		{"others 0.5, a2 1.161", 0.5, 1.161},
		{"others 0.5, a2 1.275", 0.5, 1.275},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustNew(t, six())
			tab, err := r.Step(t0, loads(tt.others, map[string]float64{"a2": tt.a2}))
			require.NoError(t, err)
			require.NotEmpty(t, tab.Out("a2"))
			for _, rt := range tab.Routes {
				assert.Greater(t, rt.Share, 1e-9, "dust route %+v", rt)
			}
		})
	}
}

// TestPropNoDustRoutes: over random tiers and loads (capacities 100-1e4, no
// receiver with a vanishing room), no route carries a share below 1e-12. Before
// the fix about 3% of all routes were such dust.
func TestPropNoDustRoutes(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		cfg := genConfig(rng)
		r := mustNew(t, cfg)
		w := newWalker(rng, len(cfg.Regions))
		for run := range 150 {
			tab, err := r.Step(t0, w.next(cfg, true))
			require.NoError(t, err)
			for _, rt := range tab.Routes {
				require.Greater(t, rt.Share, 1e-12, "seed %d run %d: dust route %+v", seed, run, rt)
			}
		}
	}
}

// TestPercentileIndex: Signal.P is the host CPU at index floor(Percentile x n) of
// the sorted hosts, capped at the last, as Config.Percentile documents. The
// product was truncated as computed, and a percentile such as 0.7 is stored a
// little below 7/10: p70 of 90 hosts read index 62 (0.7 x 90 = 62.99999999999999),
// nearest rank, instead of 63.
func TestPercentileIndex(t *testing.T) {
	tests := []struct {
		give  float64 // Config.Percentile
		hosts int
		want  int // index into the sorted host CPUs
	}{
		{0.9, 10, 9}, // the doc's example: p90 of 10 hosts is the hottest
		{0.9, 20, 18},
		{0.9, 1, 0},
		{0.9, 2, 1},
		{0.95, 7, 6},
		{0.99, 100, 99},
		{0.5, 1, 0},
		{1, 5, 4}, // capped at the last
		{0.7, 91, 63},
		{0.7, 90, 63},    // was 62
		{0.57, 100, 57},  // was 56
		{0.58, 50, 29},   // was 28
		{0.82, 150, 123}, // was 122
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("p%v of %d", tt.give, tt.hosts), func(t *testing.T) {
			assert.Equal(t, hostCPU(tt.want), signalP(t, tt.give, tt.hosts))
		})
	}
}

// TestPercentileIndexExhaustive: every whole percentile in [50, 100] over 1 to
// 400 hosts reads index floor(k x n / 100), computed in integers.
func TestPercentileIndexExhaustive(t *testing.T) {
	for k := 50; k <= 100; k++ {
		for n := 1; n <= 400; n++ {
			want := min(n-1, k*n/100)
			require.Equal(t, hostCPU(want), signalP(t, float64(k)/100, n), "p%d of %d hosts", k, n)
		}
	}
}

// hostCPU is the CPU of host i in signalP's tier: distinct, so P names its index.
func hostCPU(i int) float64 { return 0.1 + float64(i)/1024 }

// signalP returns Signal.P of a1 with n hosts at hostCPU(0..n-1), listed hottest first.
func signalP(t *testing.T, p float64, n int) float64 {
	t.Helper()
	cfg := six()
	cfg.Percentile = p
	r := mustNew(t, cfg)
	ls := loads(0.5, nil)
	ls[0].HostCPU = make([]float64, n)
	for i := range n {
		ls[0].HostCPU[i] = hostCPU(n - 1 - i)
	}
	tab, err := r.Step(t0, ls)
	require.NoError(t, err)
	return decision(tab, "a1").Signal.P
}

// Zero knobs disable failover for a region: it never spills and may still receive.
// A zero-knob region with hot hosts but plenty of room must stay Local, so it keeps
// taking spill from a region that needs to send some away.
func TestZeroKnobsNeverSpillStillReceive(t *testing.T) {
	cfg := six()
	for i := range cfg.Regions {
		if cfg.Regions[i].Name != "b1" {
			cfg.Regions[i].Knobs = failover.Knobs{}
		}
	}
	r := mustNew(t, cfg)
	ls := loads(0.4, map[string]float64{"b1": 0.95})
	// b2: mean 0.4, but a quarter of its hosts above HotCPU.
	for i := range 5 {
		ls[4].HostCPU[i] = 0.9
	}
	tab, err := r.Step(t0, ls)
	require.NoError(t, err)
	d := decision(tab, "b2")
	assert.Equal(t, failover.Local, d.Phase, d.Reason)
	assert.Positive(t, d.In, "b2 has room and zero knobs: it still receives")
	assert.Equal(t, uint64(1), r.Stats().SpillStarts, "only b1 spills")
}

// Knobs turned off by SetConfig while a region spills: it can no longer spill, so it
// must not stay Spilling (refusing spill it has room for, counted as spilling).
func TestKnobsOffMidSpillReturnsLocal(t *testing.T) {
	cfg := six()
	r := mustNew(t, cfg)
	_, err := r.Step(t0, loads(0.4, map[string]float64{"b1": 0.95}))
	require.NoError(t, err)
	require.Equal(t, 1, r.Stats().Spilling)
	cfg.Regions[3].Knobs = failover.Knobs{}
	require.NoError(t, r.SetConfig(cfg))
	tab, err := r.Step(t0, loads(0.4, map[string]float64{"b1": 0.95}))
	require.NoError(t, err)
	assert.Equal(t, failover.Local, decision(tab, "b1").Phase)
	assert.Zero(t, r.Stats().Spilling)
	assert.Equal(t, r.Stats().SpillStarts, r.Stats().SpillEnds)
}

// Demand and Capacity are accepted in any unit up to the float64 maximum. In spread,
// placed x room overflowed to +Inf for rates around 1e307, so every mega receiver got
// a route of share 1 (a region sending away 200% of its demand, a table that
// UnmarshalJSON rejects). The rooms may also sum past the maximum (the third case),
// or one room overflow by itself (the last: a ReceiverMax above 1 times a capacity
// of 1.6e308 made the room +Inf and the shares NaN; found by a review).
func TestHugeRatesPlaceSanely(t *testing.T) {
	for _, tc := range []struct {
		c, low, recvMax float64
	}{{1e307, 0.4, 0}, {1e308, 0.4, 0}, {1e308, 0.1, 0.79}, {1.6e308, 0.1, 1.5}} {
		cfg := six()
		cfg.ReceiverMax = tc.recvMax
		r := mustNew(t, cfg)
		var ls, small []failover.Load
		for _, n := range []string{"a1", "a2", "a3", "b1", "b2", "b3"} {
			u := tc.low
			if n == "b1" {
				u = 0.95
			}
			ls = append(ls, failover.Load{Region: n, Demand: tc.c * u, Capacity: tc.c})
			small = append(small, failover.Load{Region: n, Demand: 1000 * u, Capacity: 1000})
		}
		tab, err := r.Step(t0, ls)
		require.NoError(t, err)
		ref, err := mustNew(t, cfg).Step(t0, small)
		require.NoError(t, err)
		// the same tier in a unit 1e305 times larger routes the same shares
		require.Len(t, tab.Routes, len(ref.Routes), "capacity %g: %v", tc.c, tab.Routes)
		for i, rt := range tab.Routes {
			assert.InDelta(t, ref.Routes[i].Share, rt.Share, 1e-9, "capacity %g: %v", tc.c, tab.Routes)
		}
		d, dr := decision(tab, "b1"), decision(ref, "b1")
		assert.InDelta(t, dr.Out, d.Out, 1e-9, "capacity %g", tc.c)
		assert.InDelta(t, dr.Unplaced, d.Unplaced, 1e-9, "capacity %g", tc.c)
		b, err := json.Marshal(tab)
		require.NoError(t, err)
		var back failover.Table
		require.NoError(t, json.Unmarshal(b, &back), "capacity %g", tc.c)
	}
}
