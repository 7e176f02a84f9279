package failover_test

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

var t0 = time.Unix(1_700_000_000, 0)

// six returns a tier of regions a1..a3 (mega east) and b1..b3 (mega west), every
// mechanism at 100%, a2 backed by a ring of a1 (70) and a3 (30).
func six() failover.Config {
	cfg := failover.Config{Tier: "t"}
	for _, n := range []string{"a1", "a2", "a3", "b1", "b2", "b3"} {
		r := failover.Region{Name: n, Mega: map[byte]string{'a': "east", 'b': "west"}[n[0]],
			Knobs: failover.Knobs{Ring: 100, Mega: 100, Global: 100}}
		if n == "a2" {
			r.Ring = []failover.Backup{{Region: "a1", Weight: 70}, {Region: "a3", Weight: 30}}
		}
		cfg.Regions = append(cfg.Regions, r)
	}
	return cfg
}

// loads gives every region capacity 1000 at util u (a map overrides), hosts at util.
func loads(u float64, over map[string]float64) []failover.Load {
	var out []failover.Load
	for _, n := range []string{"a1", "a2", "a3", "b1", "b2", "b3"} {
		x := u
		if v, ok := over[n]; ok {
			x = v
		}
		out = append(out, failover.Load{Region: n, Demand: 1000 * x, Capacity: 1000, HostCPU: hosts(x)})
	}
	return out
}

// hosts returns 20 host CPUs around u: p90 = 1.05 u.
func hosts(u float64) []float64 {
	out := make([]float64, 20)
	for i := range out {
		out[i] = u * (0.95 + 0.1*float64(i)/19)
	}
	return out
}

func mustNew(t testing.TB, cfg failover.Config) *failover.Router {
	t.Helper()
	r, err := failover.New(cfg)
	require.NoError(t, err)
	return r
}

// stepNoHosts runs r once with every region at capacity 1000 and util 0.5
// but b1 at u, with no host CPUs (k = 1: the projection is the demand's),
// and returns the table.
func stepNoHosts(t testing.TB, r *failover.Router, u float64) failover.Table {
	t.Helper()
	ls := loads(0.5, map[string]float64{"b1": u})
	for i := range ls {
		ls[i].HostCPU = nil
	}
	tab, err := r.Step(t0, ls)
	require.NoError(t, err)
	return tab
}

func decision(tab failover.Table, name string) failover.RegionDecision {
	for _, d := range tab.Regions {
		if d.Name == name {
			return d
		}
	}
	panic("no region " + name)
}

func TestValidate(t *testing.T) {
	base := six()
	tests := []struct {
		name string
		edit func(c *failover.Config)
		want string
	}{
		{"no regions", func(c *failover.Config) { c.Regions = nil }, "no regions"},
		{"dup", func(c *failover.Config) { c.Regions[1].Name = "a1" }, "twice"},
		{"empty name", func(c *failover.Config) { c.Regions[0].Name = "" }, "empty name"},
		{"knob", func(c *failover.Config) { c.Regions[0].Knobs.Mega = 101 }, "Knobs.Mega 101"},
		{"ring unknown", func(c *failover.Config) { c.Regions[1].Ring[0].Region = "zz" }, "not a region"},
		{"ring self", func(c *failover.Config) { c.Regions[1].Ring[0].Region = "a2" }, "itself"},
		{"ring weight", func(c *failover.Config) { c.Regions[1].Ring[0].Weight = 0 }, "ring weight"},
		{"hysteresis", func(c *failover.Config) { c.Exit, c.Target = 0.8, 0.75 }, "hysteresis"},
		{"percentile", func(c *failover.Config) { c.Percentile = 0.3 }, "Percentile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := six()
			tt.edit(&c)
			_, err := failover.New(c)
			require.ErrorIs(t, err, failover.ErrInvalidConfig)
			assert.Contains(t, err.Error(), "failover: ")
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	r := mustNew(t, base)
	bad := six()
	bad.Enter = 3
	require.Error(t, r.SetConfig(bad))
	assert.Equal(t, 0.80, r.Config().Enter)
}

func TestStepRejectsBadLoads(t *testing.T) {
	r := mustNew(t, six())
	tests := []struct {
		name string
		give []failover.Load
	}{
		{"unknown", []failover.Load{{Region: "zz"}}},
		{"dup", []failover.Load{{Region: "a1"}, {Region: "a1"}}},
		{"NaN demand", []failover.Load{{Region: "a1", Demand: math.NaN()}}},
		{"negative capacity", []failover.Load{{Region: "a1", Capacity: -1}}},
		{"bad host", []failover.Load{{Region: "a1", Capacity: 1, HostCPU: []float64{-1}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Step(t0, tt.give)
			var le *failover.LoadError
			require.True(t, errors.As(err, &le), "%v", err)
		})
	}
	assert.Equal(t, uint64(5), r.Stats().Rejected)
}

// TestNothingWrongStaysLocal: at equal, moderate demand there are no routes.
func TestNothingWrongStaysLocal(t *testing.T) {
	r := mustNew(t, six())
	for i := range 50 {
		tab, err := r.Step(t0.Add(time.Duration(i)*time.Minute), loads(0.6, nil))
		require.NoError(t, err)
		require.Empty(t, tab.Routes)
		for _, d := range tab.Regions {
			require.Equal(t, failover.Local, d.Phase)
		}
	}
}

// TestFiresBeforeTheCrossing: a region whose demand rises one point per run fires
// while its mean CPU is still well below Enter, thanks to the percentile and trend.
// It holds the figures the package doc quotes: it fires at mean CPU 0.72, 5 runs
// before its p90 reaches 0.80 and 18 runs before its mean reaches 0.90.
func TestFiresBeforeTheCrossing(t *testing.T) {
	r := mustNew(t, six())
	fired, p90At, meanAt := -1, -1, -1
	for i := range 40 {
		u := 0.55 + 0.01*float64(i)
		tab, err := r.Step(t0, loads(0.5, map[string]float64{"b1": u}))
		require.NoError(t, err)
		d := decision(tab, "b1")
		if d.Phase == failover.Spilling && fired < 0 {
			fired = i
			assert.Contains(t, d.Reason, "fired")
			assert.Equal(t, "0.72", fmt.Sprintf("%.2f", d.Signal.Mean), "mean CPU when it fires")
		}
		if d.Signal.P >= 0.80 && p90At < 0 {
			p90At = i
		}
		if d.Signal.Mean >= 0.90-1e-9 && meanAt < 0 {
			meanAt = i
		}
	}
	require.True(t, fired >= 0 && p90At >= 0 && meanAt >= 0, "fired %d, p90 at 0.80 %d, mean at 0.90 %d", fired, p90At, meanAt)
	assert.Equal(t, 5, p90At-fired, "runs from firing to p90 0.80")
	assert.Equal(t, 18, meanAt-fired, "runs from firing to mean 0.90")
}

// TestHysteresis: once spilling, a region does not stop until its projected home
// percentile is below Exit and MinHold runs passed; the share winds down by DownStep.
func TestHysteresis(t *testing.T) {
	cfg := six()
	r := mustNew(t, cfg)
	step := func(u float64) failover.RegionDecision {
		tab, err := r.Step(t0, loads(0.5, map[string]float64{"b1": u}))
		require.NoError(t, err)
		return decision(tab, "b1")
	}
	d := step(0.95)
	require.Equal(t, failover.Spilling, d.Phase)
	first := d.Want
	assert.InDelta(t, 1-0.75/(0.95*1.05), first, 0.02)
	// Back to 0.70 (home p90 ~0.735: between Exit and Enter): keeps spilling, winding
	// down no faster than DownStep per run.
	prev := first
	for range 30 {
		d = step(0.70)
		require.Equal(t, failover.Spilling, d.Phase)
		require.GreaterOrEqual(t, d.Want, prev-0.02-1e-9)
		prev = d.Want
	}
	assert.Zero(t, d.Want)
	// Below Exit: back to local.
	d = step(0.55)
	assert.Equal(t, failover.Local, d.Phase)
	st := r.Stats()
	assert.Equal(t, uint64(1), st.SpillStarts)
	assert.Equal(t, uint64(1), st.SpillEnds)
}

// TestMegaFirstThenGlobal: spill stays in the mega-region while it has room.
func TestMegaFirstThenGlobal(t *testing.T) {
	r := mustNew(t, six())
	tab, err := r.Step(t0, loads(0.4, map[string]float64{"b1": 0.95}))
	require.NoError(t, err)
	for _, rt := range tab.Out("b1") {
		assert.Equal(t, failover.MechMega, rt.Mechanism)
		assert.Contains(t, []string{"b2", "b3"}, rt.To)
	}
	// mega-mates nearly full: the rest goes global
	r = mustNew(t, six())
	tab, err = r.Step(t0, loads(0.4, map[string]float64{"b1": 1.2, "b2": 0.68, "b3": 0.68}))
	require.NoError(t, err)
	mechs := map[failover.Mechanism]float64{}
	for _, rt := range tab.Out("b1") {
		mechs[rt.Mechanism] += rt.Share
	}
	assert.Positive(t, mechs[failover.MechMega])
	assert.Positive(t, mechs[failover.MechGlobal])
	d := decision(tab, "b1")
	assert.InDelta(t, d.Want, d.Out, 1e-9, "everything placed")
}

// TestRingProportions: a2's spill goes 70/30 to a1 and a3 when both have room.
func TestRingProportions(t *testing.T) {
	r := mustNew(t, six())
	tab, err := r.Step(t0, loads(0.4, map[string]float64{"a2": 0.9}))
	require.NoError(t, err)
	got := map[string]float64{}
	for _, rt := range tab.Out("a2") {
		require.Equal(t, failover.MechRing, rt.Mechanism)
		got[rt.To] += rt.Share
	}
	assert.InDelta(t, 0.7, got["a1"]/(got["a1"]+got["a3"]), 1e-9)
}

// TestKnob: a knob of p routes p% of what the mechanism placed; the rest stays home.
func TestKnob(t *testing.T) {
	cfg := six()
	cfg.Regions[3].Knobs = failover.Knobs{Mega: 40}
	r := mustNew(t, cfg)
	tab, err := r.Step(t0, loads(0.4, map[string]float64{"b1": 0.95}))
	require.NoError(t, err)
	d := decision(tab, "b1")
	assert.InDelta(t, 0.4*d.Want, d.Out, 1e-9)
	// Knobs off: never spills.
	cfg.Regions[3].Knobs = failover.Knobs{}
	r = mustNew(t, cfg)
	tab, err = r.Step(t0, loads(0.4, map[string]float64{"b1": 0.95}))
	require.NoError(t, err)
	assert.Empty(t, tab.Out("b1"))
}

// TestReceiversCapped: receivers are filled to ReceiverMax at most; the rest is
// reported unplaced.
func TestReceiversCapped(t *testing.T) {
	r := mustNew(t, six())
	tab, err := r.Step(t0, loads(0.66, map[string]float64{"b1": 2}))
	require.NoError(t, err)
	d := decision(tab, "b1")
	assert.Positive(t, d.Unplaced)
	k := 0.95 + 0.1*18/19 // p90 over mean of hosts()
	for _, x := range tab.Regions {
		if x.Name != "b1" {
			// home p90 plus inbound, at the receiver's imbalance, stays <= ReceiverMax
			assert.LessOrEqual(t, (0.66+x.In)*k, 0.75+1e-9, x.Name)
			assert.Positive(t, x.In)
		}
	}
}

// TestDownRegion: a region with no capacity sends everything it can away.
func TestDownRegion(t *testing.T) {
	r := mustNew(t, six())
	ls := loads(0.4, nil)
	ls[0].Capacity, ls[0].HostCPU = 0, nil
	tab, err := r.Step(t0, ls)
	require.NoError(t, err)
	d := decision(tab, "a1")
	assert.Equal(t, failover.Spilling, d.Phase)
	assert.InDelta(t, 1, d.Want, 1e-9)
	assert.InDelta(t, 1, d.Out, 1e-9)
}

// TestPick: realized shares over many units match the table, and units only leave
// home as the share grows.
func TestPick(t *testing.T) {
	const units = 100000
	away := make([]bool, units)
	for _, u := range []float64{0.85, 0.9, 1.0, 1.1} {
		r := mustNew(t, six())
		tab, err := r.Step(t0, loads(0.3, map[string]float64{"b1": u}))
		require.NoError(t, err)
		d := decision(tab, "b1")
		n := 0
		for i := range units {
			now := tab.Pick("b1", fmt.Sprint("c", i)) != "b1"
			require.False(t, away[i] && !now, "unit %d came home as the share grew", i)
			away[i] = now
			if now {
				n++
			}
		}
		assert.InDelta(t, d.Out, float64(n)/units, 0.005, "share at %v", u)
	}
}

// TestConcurrentUse: Step, SetConfig, Stats and Config from several goroutines (run
// under -race); every table keeps its invariants.
func TestConcurrentUse(t *testing.T) {
	r := mustNew(t, six())
	done := make(chan struct{})
	for g := range 3 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 300 {
				u := 0.5 + 0.5*float64((i+g*7)%20)/20
				tab, err := r.Step(t0, loads(0.5, map[string]float64{"b1": u}))
				if err != nil {
					t.Error(err)
					return
				}
				for _, d := range tab.Regions {
					if d.Out > d.Want+1e-9 {
						t.Errorf("out %v > want %v", d.Out, d.Want)
						return
					}
				}
				_ = r.Stats()
				if i%50 == 0 {
					if err := r.SetConfig(six()); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	for range 3 {
		<-done
	}
	assert.Equal(t, uint64(900), r.Stats().Runs)
}
