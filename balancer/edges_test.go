package balancer_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// ChurnShare is documented as "the share of hosts that joined ... ABOVE which the tier
// is in task churn" (TaskChurn: "more than ChurnShare"). Exactly ChurnShare (1 of 100 at
// the default 0.01) must not be churn.
func TestChurnShareIsStrict(t *testing.T) {
	b := mustNew(t, balancer.Config{})
	var hosts []balancer.Host
	for i := range 100 {
		hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: 1, CPU: 0.5})
	}
	_, err := b.Step(t0, hosts)
	require.NoError(t, err)
	hosts[7] = balancer.Host{ID: "fresh", Cores: 32, New: true} // one replaced task
	res, err := b.Step(t0, hosts)
	require.NoError(t, err)
	require.NotEqual(t, balancer.TaskChurn, res.State, "%s", res.Evidence)
}

// TestRecenterKeepsShares: a balanced tier whose weights are on another scale
// (weight = cores) is rescaled onto the target median without changing any
// host's share: clamping before rescaling flattened them (a 17% keyspace move).
func TestRecenterKeepsShares(t *testing.T) {
	var hosts []balancer.Host
	for i := range 40 {
		c := float64(26 + 5*(i%21)) // 26..126 cores
		hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: c, Weight: c, CPU: 0.55})
	}
	b, err := balancer.New(balancer.Config{})
	require.NoError(t, err)
	res, err := b.Step(t0, hosts)
	require.NoError(t, err)
	t.Logf("state %v, recentered %v, changed %d, moved %.3f", res.State, res.Recentered, res.Changed, res.KeyspaceMoved)
	assert.True(t, res.Recentered)
	assert.Less(t, res.KeyspaceMoved, 0.01, "a balanced tier lost its weight shares")
	// shares preserved: every weight scaled by the same factor
	lo, hi := res.Hosts[0].New/res.Hosts[0].Old, res.Hosts[0].New/res.Hosts[0].Old
	for _, d := range res.Hosts {
		lo, hi = min(lo, d.New/d.Old), max(hi, d.New/d.Old)
	}
	assert.InDelta(t, 1, hi/lo, 1e-9, "per-host scale factors range over [%v, %v]", lo, hi)
}

// TestThrottleIsAnUpperBound: MaxMoveShare is "at most this share of the hosts (at
// least one)"; the count was rounded to nearest, so 75 hosts at the default 0.02
// (1.5 hosts) moved 2 per run, 2.7% of the tier.
func TestThrottleIsAnUpperBound(t *testing.T) {
	for _, tc := range []struct {
		n     int
		share float64
		want  int
	}{{75, 0.02, 1}, {54, 0.03, 1}, {100, 0.29, 29}, {200, 0.02, 4}, {30, 0.02, 1}} {
		b := mustNew(t, balancer.Config{MaxMoveShare: tc.share})
		var hosts []balancer.Host
		for i := range tc.n {
			cpu := 0.5
			if i < 2 {
				cpu = 0.5 * (1.05 + 0.001*float64(i)) // two hosts out of the deadband
			}
			hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: 1, CPU: cpu})
		}
		res, err := b.Step(t0, hosts)
		require.NoError(t, err)
		require.Equal(t, balancer.SteadyDrift, res.State, "%s", res.Evidence)
		assert.Equal(t, tc.want, res.Policy.MaxMoves, "%d hosts at %v", tc.n, tc.share)
	}
}

// TestKeyspaceMovedFromNoWeights: when no input host had a weight (a tier that is
// all new, or whose weights were lost), every key takes its first owner and
// KeyspaceMoved is 1. Half the L1 change of the shares read 0.5, since the old
// shares were all zero, while one old host among 29 new ones read 0.96.
func TestKeyspaceMovedFromNoWeights(t *testing.T) {
	tests := []struct {
		name string
		give func(i int) balancer.Host
		want float64
	}{
		{"all new", func(i int) balancer.Host {
			return balancer.Host{ID: fmt.Sprint("n", i), Cores: float64(16 + 8*(i%3)), New: true}
		}, 1},
		{"no weights, not marked new", func(i int) balancer.Host {
			return balancer.Host{ID: fmt.Sprint("h", i), Cores: float64(16 + 8*(i%3)), CPU: 0.5}
		}, 1},
		{"unchanged balanced tier", func(i int) balancer.Host {
			return balancer.Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: 1, CPU: 0.5}
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hosts []balancer.Host
			for i := range 30 {
				hosts = append(hosts, tt.give(i))
			}
			res, err := mustNew(t, balancer.Config{}).Step(t0, hosts)
			require.NoError(t, err)
			assert.InDelta(t, tt.want, res.KeyspaceMoved, 1e-9, "state %v", res.State)
		})
	}
}

// TestKeyspaceMovedGrowsAsOldHostsVanish: with 30 hosts of which fewer and fewer
// had a weight before, more and more of the keyspace moves, up to all of it.
func TestKeyspaceMovedGrowsAsOldHostsVanish(t *testing.T) {
	last := 0.0
	for old := 3; old >= 0; old-- {
		var hosts []balancer.Host
		for i := range 30 {
			h := balancer.Host{ID: fmt.Sprint("n", i), Cores: 32, New: true}
			if i < old {
				h = balancer.Host{ID: fmt.Sprint("o", i), Cores: 32, Weight: 1, CPU: 0.5}
			}
			hosts = append(hosts, h)
		}
		res, err := mustNew(t, balancer.Config{}).Step(t0, hosts)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, res.KeyspaceMoved, last, "%d old hosts", old)
		last = res.KeyspaceMoved
	}
	assert.InDelta(t, 1, last, 1e-9)
}

// Weights are accepted when > 0, however small. With subnormal weights the recenter
// factor TargetMedian/median overflows to +Inf; a new host whose capacity weight
// underflowed to 0 then got 0*Inf = NaN as its published weight, and every other
// weight was flattened to MaxWeight (their 2:1 ratios lost).
func TestRecenterTinyWeightsStaysFinite(t *testing.T) {
	b := mustNew(t, balancer.Config{})
	var hosts []balancer.Host
	for i := range 9 {
		hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 4, CPU: 0.5 + 0.025*float64(i%3),
			Weight: 5e-324 * float64(1+i%2)})
	}
	hosts = append(hosts, balancer.Host{ID: "new", Cores: 4, New: true})
	res, err := b.Step(t0, hosts)
	require.NoError(t, err)
	requireWeightsInBounds(t, b.Config(), res)
	// h1 had twice h0's weight: the rescale keeps the ratio.
	assert.InDelta(t, 2, res.Hosts[1].New/res.Hosts[0].New, 0.2)
}

// Weights near math.MaxFloat64 are accepted. The median of two of them overflowed to
// +Inf, so the recenter factor was 0 and every weight was flattened to MinWeight (all
// their differences lost, every key reshuffled), and the sum of the weights
// overflowed, so KeyspaceMoved read 0.5 whatever moved.
func TestHugeWeightsKeepRatios(t *testing.T) {
	b := mustNew(t, balancer.Config{})
	var hosts []balancer.Host
	for i := range 10 {
		hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 4, CPU: 0.5,
			Weight: 1e307 * float64(9+i%2)})
	}
	res, err := b.Step(t0, hosts)
	require.NoError(t, err)
	require.True(t, res.Recentered)
	for i, d := range res.Hosts {
		// every load is 1: no correction, only the rescale onto the target median
		assert.InDelta(t, hosts[i].Weight/0.95e308, d.New, 1e-9, "%+v", d)
	}
	assert.InDelta(t, 0, res.KeyspaceMoved, 1e-9)
}

// A raise of a weight near math.MaxFloat64 (or a capacity weight of a host with huge
// cores) overflows to +Inf before the bounds apply. When that was the median, the
// recenter factor was 0 and the published weights were Inf*0 = NaN.
func TestRaisedHugeWeightsStayFinite(t *testing.T) {
	b := mustNew(t, balancer.Config{})
	var hosts []balancer.Host
	for i := range 10 {
		cpu := 0.4 // light: raised
		if i >= 6 {
			cpu = 0.8
		}
		hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 4, CPU: cpu, Weight: 1.7e308})
	}
	res, err := b.Step(t0, hosts)
	require.NoError(t, err)
	requireWeightsInBounds(t, b.Config(), res)
	// the light hosts end up heavier than the loaded ones
	assert.Greater(t, res.Hosts[0].New, res.Hosts[9].New)
}

// CPU is accepted as any finite value >= 0. When the CPUs summed past the float64
// maximum, the mean CPU was +Inf and every load 0: no host was corrected, MaxMean read
// 0, and under the regional policy a region's median load of 0 made its hosts'
// residual load 0/0 = NaN, published as their weight.
func TestHugeCPUKeepsLoads(t *testing.T) {
	b := mustNew(t, balancer.Config{})
	var hosts []balancer.Host
	for i := range 12 {
		h := balancer.Host{ID: fmt.Sprint("h", i), Cores: 4, Weight: 1, Region: "a", CPU: 1e308 * (0.9 + 0.02*float64(i%3))}
		if i%2 == 1 {
			h.Region, h.CPU = "b", h.CPU*1.5
		}
		hosts = append(hosts, h)
	}
	res, err := b.Step(t0, hosts)
	require.NoError(t, err)
	requireWeightsInBounds(t, b.Config(), res)
	for _, d := range res.Hosts {
		// the loads are CPU over the mean, whatever the unit
		assert.InDelta(t, 1, d.Load, 0.5, "%+v", d)
	}
	assert.InDelta(t, 1.27, res.MaxMean, 0.1)
	// region b is heavier: its hosts end up lighter
	assert.Greater(t, res.Hosts[0].New, res.Hosts[1].New, "%+v", res)
}

// Loads of hosts whose CPU is tiny next to the tier's mean underflow to 0. Under the
// regional policy a region whose median load was 0 got the factor 0, and each of its
// hosts the residual load 0/0 = NaN, published as its weight.
func TestRegionZeroMedianLoadStaysFinite(t *testing.T) {
	b := mustNew(t, balancer.Config{})
	var hosts []balancer.Host
	for i := range 12 {
		h := balancer.Host{ID: fmt.Sprint("h", i), Cores: 4, Weight: 1, CPU: 1e30, Region: fmt.Sprint("r", i%3)}
		if i%3 == 0 {
			h.CPU, h.Weight = 1e-300, 1e-290 // load 1e-300/1e30 underflows to 0
		}
		hosts = append(hosts, h)
	}
	res, err := b.Step(t0, hosts)
	require.NoError(t, err)
	require.Equal(t, balancer.RegionalSkew, res.State, res.Evidence)
	requireWeightsInBounds(t, b.Config(), res)
}

// TargetMedian and MaxWeight are each valid up to math.MaxFloat64, but their product,
// the upper bound, overflows to +Inf: a recentering that scaled a large weight past
// the float64 maximum then published +Inf.
func TestHugeBoundStaysFinite(t *testing.T) {
	b := mustNew(t, balancer.Config{TargetMedian: 1e300, MaxWeight: 1e300})
	var hosts []balancer.Host
	for i := range 10 {
		w := 1e299 // the median, a tenth of the target: recentered x10
		if i == 0 {
			w = 1e308
		}
		hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 4, CPU: 0.5, Weight: w})
	}
	res, err := b.Step(t0, hosts)
	require.NoError(t, err)
	require.True(t, res.Recentered)
	requireWeightsInBounds(t, b.Config(), res)
	assert.Equal(t, math.MaxFloat64, res.Hosts[0].New)
	assert.InDelta(t, 1e300, res.Hosts[1].New, 1e288)
}

// requireWeightsInBounds fails unless every weight res publishes is finite and
// within cfg's bounds (MinWeight and MaxWeight times TargetMedian, the upper one
// capped at the float64 maximum).
func requireWeightsInBounds(t *testing.T, cfg balancer.Config, res balancer.Result) {
	t.Helper()
	upper := min(cfg.MaxWeight*cfg.TargetMedian, math.MaxFloat64)
	for _, d := range res.Hosts {
		require.False(t, math.IsNaN(d.New) || math.IsInf(d.New, 0), "%+v", d)
		require.GreaterOrEqual(t, d.New, cfg.MinWeight*cfg.TargetMedian, "%+v", d)
		require.LessOrEqual(t, d.New, upper, "%+v", d)
	}
	require.False(t, math.IsNaN(res.KeyspaceMoved), "%+v", res)
}
