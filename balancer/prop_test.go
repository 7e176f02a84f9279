package balancer_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// Property tests: random tiers (cores, hidden efficiencies, regions, joins, missing
// signals) under random configs, run for many rounds with the new weights fed back
// through a load model, every Result checked against the invariants doc.go promises.

func genBalConfig(rng *rand.Rand) balancer.Config {
	var c balancer.Config
	if rng.IntN(2) == 0 {
		c.TargetMedian = []float64{0.37, 1, 100, 1e-3}[rng.IntN(4)]
		c.MinWeight = 0.01 + 0.5*rng.Float64()
		c.MaxWeight = 1 + 50*rng.Float64()
		c.MaxMoveShare = 0.01 + 0.3*rng.Float64()
		c.Deadband = 0.1 * rng.Float64()
	}
	return c
}

type balTier struct {
	rng   *rand.Rand
	hosts []balancer.Host
	eff   []float64
	next  int
}

func newBalTier(rng *rand.Rand) *balTier {
	bt := &balTier{rng: rng}
	for range 1 + rng.IntN(60) {
		bt.add(false)
	}
	return bt
}

func (bt *balTier) add(isNew bool) {
	rng := bt.rng
	h := balancer.Host{ID: fmt.Sprint("h", bt.next), Cores: float64(1 + rng.IntN(128)),
		Region: fmt.Sprint("r", rng.IntN(3)), New: isNew}
	bt.next++
	if !isNew && rng.IntN(10) != 0 {
		h.Weight = math.Exp(2 * rng.NormFloat64())
	}
	bt.hosts = append(bt.hosts, h)
	bt.eff = append(bt.eff, math.Exp(0.4*rng.NormFloat64()))
}

// observe sets each host's CPU from its weight share (some hosts report no signal).
func (bt *balTier) observe() []balancer.Host {
	var sumW, capEff float64
	for i, h := range bt.hosts {
		sumW += h.Weight
		capEff += h.Cores * bt.eff[i]
	}
	out := slices.Clone(bt.hosts)
	for i := range out {
		if sumW > 0 {
			out[i].CPU = 0.55 * capEff * out[i].Weight / sumW / (out[i].Cores * bt.eff[i])
		}
		out[i].CPU = math.Max(0, out[i].CPU*(1+0.01*bt.rng.NormFloat64()))
		if bt.rng.IntN(25) == 0 {
			out[i].CPU = 0
		}
	}
	return out
}

func (bt *balTier) apply(res balancer.Result) {
	for i, d := range res.Hosts {
		bt.hosts[i].Weight, bt.hosts[i].New = d.New, false
	}
	if bt.rng.IntN(10) == 0 && len(bt.hosts) > 1 { // churn: replace one host
		i := bt.rng.IntN(len(bt.hosts))
		bt.hosts = slices.Delete(bt.hosts, i, i+1)
		bt.eff = slices.Delete(bt.eff, i, i+1)
		bt.add(true)
	}
}

func checkResult(t *testing.T, cfg balancer.Config, in []balancer.Host, res balancer.Result) {
	t.Helper()
	lo, hi := cfg.MinWeight*cfg.TargetMedian, cfg.MaxWeight*cfg.TargetMedian
	require.Len(t, res.Hosts, len(in))
	var oldMax, newMax float64
	for i, d := range res.Hosts {
		require.Equal(t, in[i].ID, d.ID)
		require.Equal(t, in[i].Weight, d.Old)
		require.False(t, math.IsNaN(d.New) || math.IsInf(d.New, 0), "%+v", d)
		require.True(t, d.New >= lo*(1-1e-12) && d.New <= hi*(1+1e-12), "%+v not in [%v, %v]", d, lo, hi)
		require.NotEqual(t, "unknown", d.Reason.String())
		oldMax, newMax = max(oldMax, d.Old), max(newMax, d.New)
	}
	// Shares are summed over weights scaled by the largest, so that weights
	// near the float64 maximum (a huge TargetMedian) do not overflow the sums.
	var oldSum, newSum float64
	for _, d := range res.Hosts {
		if oldMax > 0 {
			oldSum += d.Old / oldMax
		}
		newSum += d.New / newMax
	}
	// KeyspaceMoved is half the L1 change of the weight shares, or 1 when no
	// host had a weight (every key takes its first owner).
	moved := 2.0
	if oldSum > 0 {
		moved = 0
		for _, d := range res.Hosts {
			moved += math.Abs(d.New/newMax/newSum - d.Old/oldMax/oldSum)
		}
	}
	require.InDelta(t, moved/2, res.KeyspaceMoved, 1e-9)
	require.True(t, res.KeyspaceMoved >= 0 && res.KeyspaceMoved <= 1+1e-9)
	// hosts left alone keep their weight (up to the recentering and the bounds)
	if !res.Recentered {
		for _, d := range res.Hosts {
			switch d.Reason {
			case balancer.ReasonHeld, balancer.ReasonThrottled, balancer.ReasonNoSignal:
				if !d.Region {
					require.Equal(t, math.Min(math.Max(d.Old, lo), hi), d.New, "%+v", d)
				}
			case balancer.ReasonRaised:
				require.Greater(t, d.New, d.Old, "%+v", d)
			case balancer.ReasonLowered:
				require.Less(t, d.New, d.Old, "%+v", d)
			}
		}
	}
	// the throttle: outside the wide policy, at most MaxMoves hosts are corrected in
	// the steady and bimodal states (no young hosts, no outliers, no region factors)
	if !res.Policy.Wide && (res.State == balancer.SteadyDrift || res.State == balancer.BimodalLoad) {
		moves := 0
		for i, d := range res.Hosts {
			// a new or weightless host's capacity weight is no correction, also
			// when a bound set it (ReasonBounded)
			capacity := in[i].New || in[i].Weight == 0
			// nor is a weight the load left alone in the deadband, which a
			// recentering scaled past a bound and the bound set (ReasonBounded,
			// checked below): the throttle is about corrections
			held := d.Load != 0 && math.Abs(d.Load-1) <= cfg.Deadband
			switch d.Reason {
			case balancer.ReasonLowered, balancer.ReasonRaised:
				if !capacity {
					moves++
				}
			case balancer.ReasonBounded:
				if !capacity && !held {
					moves++
				}
			}
			// In the deadband a host is held, unless recentering pushed its weight
			// past a bound and the bound set it (ReasonBounded, at the bound).
			if d.Load != 0 && math.Abs(d.Load-1) <= cfg.Deadband {
				if d.Reason == balancer.ReasonBounded {
					require.True(t, d.New == lo || d.New == math.Min(hi, math.MaxFloat64), "%+v in the deadband", d)
				} else {
					require.Equal(t, balancer.ReasonHeld, d.Reason, "%+v in the deadband", d)
				}
			}
		}
		require.LessOrEqual(t, moves, res.Policy.MaxMoves, "state %v", res.State)
		if res.State == balancer.SteadyDrift {
			// "at most this share of the hosts (... at least one)"
			bound := max(1, cfg.MaxMoveShare*float64(len(in)))
			require.LessOrEqual(t, float64(res.Policy.MaxMoves), bound+1e-9,
				"%d hosts, MaxMoveShare %v", len(in), cfg.MaxMoveShare)
		}
	}
}

// TestPropStep runs random tiers and checks every Result; a second balancer fed the
// same input returns the same Result, and the input is not modified.
func TestPropStep(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 3))
		cfg0 := genBalConfig(rng)
		b1, b2 := mustNew(t, cfg0), mustNew(t, cfg0)
		cfg := b1.Config()
		bt := newBalTier(rng)
		for run := range 40 {
			in := bt.observe()
			keep := slices.Clone(in)
			res, err := b1.Step(t0, in)
			require.NoError(t, err)
			res2, err := b2.Step(t0, in)
			require.NoError(t, err)
			require.Equal(t, keep, in, "input modified")
			require.True(t, reflect.DeepEqual(res, res2), "seed %d run %d: two balancers disagree", seed, run)
			checkResult(t, cfg, in, res)
			bt.apply(res)
		}
	}
}

// TestPropScaleFree: the balancer reads loads relative to the tier's mean and weights
// per core relative to the median, so doubling every CPU, or every host's cores,
// leaves every weight exactly as it was (powers of two scale without rounding).
func TestPropScaleFree(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 5))
		cfg := genBalConfig(rng)
		b, bc, bk := mustNew(t, cfg), mustNew(t, cfg), mustNew(t, cfg)
		bt := newBalTier(rng)
		for run := range 25 {
			in := bt.observe()
			cpu, cores := slices.Clone(in), slices.Clone(in)
			for i := range in {
				cpu[i].CPU *= 2
				cores[i].Cores *= 4
			}
			res, err := b.Step(t0, in)
			require.NoError(t, err)
			rc, err := bc.Step(t0, cpu)
			require.NoError(t, err)
			rk, err := bk.Step(t0, cores)
			require.NoError(t, err)
			for i, d := range res.Hosts {
				require.Equal(t, d.New, rc.Hosts[i].New, "seed %d run %d: CPU x2 moved %s", seed, run, d.ID)
				require.Equal(t, d.New, rk.Hosts[i].New, "seed %d run %d: cores x4 moved %s", seed, run, d.ID)
			}
			require.Equal(t, res.State, rc.State)
			require.Equal(t, res.State, rk.State)
			bt.apply(res)
		}
	}
}
