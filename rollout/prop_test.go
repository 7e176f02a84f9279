package rollout_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/rollout"
)

// Property tests: random rule sets (nested prefixes, region filters, salts, both the
// linear and the per-length lookup) checked against the semantics in doc.go.

var propPrefixes = []string{"", "u", "u:", "u:1", "u:10", "u:2", "v", "v:x", "ü", "üb"}

func genRules(rng *rand.Rand) []rollout.Rule {
	var rules []rollout.Rule
	seen := map[[2]string]bool{}
	for range 1 + rng.IntN(30) {
		r := rollout.Rule{
			Service: []string{"a", "b", "c"}[rng.IntN(3)],
			Prefix:  propPrefixes[rng.IntN(len(propPrefixes))],
			Percent: float64(rng.IntN(10001)) / 100,
		}
		if rng.IntN(4) == 0 {
			r.Percent = 100 * rng.Float64() // finer than the basis-point resolution
		}
		if rng.IntN(3) == 0 {
			r.Regions = []string{"eu", "us", "ap"}[:1+rng.IntN(3)]
		}
		if rng.IntN(4) == 0 {
			r.Salt = fmt.Sprint("salt", rng.IntN(3))
		}
		k := [2]string{r.Service, r.Prefix}
		if !seen[k] {
			seen[k] = true
			rules = append(rules, r)
		}
	}
	return rules
}

func genQuery(rng *rand.Rand) rollout.Query {
	q := rollout.Query{
		Service: []string{"a", "b", "c", "d"}[rng.IntN(4)],
		Key:     propPrefixes[rng.IntN(len(propPrefixes))] + fmt.Sprint(rng.IntN(1000)),
		Region:  []string{"", "eu", "us", "ap"}[rng.IntN(4)],
	}
	if rng.IntN(3) == 0 {
		q.Unit = fmt.Sprint("client-", rng.IntN(1000))
	}
	return q
}

// TestPropDecide: decisions agree with the naive reference, are stable across calls
// and across Flags built from the same Config (another process), are monotone in
// every rule's percentage, exact at 0% and 100%, and the kill switch wins and
// restores the previous routing when turned off.
func TestPropDecide(t *testing.T) {
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 9))
		cfg := rollout.Config{Rules: genRules(rng)}
		f, g := mustNew(t, cfg), mustNew(t, cfg)
		qs := make([]rollout.Query, 300)
		for i := range qs {
			qs[i] = genQuery(rng)
		}
		before := make([]rollout.Decision, len(qs))
		for i, q := range qs {
			d := f.Decide(q)
			require.Equal(t, naiveDecide(cfg, q), d, "seed %d %+v", seed, q)
			require.Equal(t, d, f.Decide(q))
			require.Equal(t, d, g.Decide(q))
			require.Equal(t, d.Reason == rollout.ReasonRamped, d.Use)
			require.Less(t, d.Bucket, uint32(10000))
			if d.Reason == rollout.ReasonHeld || d.Reason == rollout.ReasonRamped {
				bp := math.Round(cfg.Rules[d.Rule].Percent * 100)
				require.Equal(t, d.Use, float64(d.Bucket) < bp, "seed %d: %+v bucket vs %v bp", seed, d, bp)
			}
			before[i] = d
		}

		// raise one rule's percentage: no decision turns off, only that rule's turn on
		up := cfg
		up.Rules = slices.Clone(cfg.Rules)
		k := rng.IntN(len(up.Rules))
		up.Rules[k].Percent += (100 - up.Rules[k].Percent) * rng.Float64()
		require.NoError(t, g.SetConfig(up))
		for i, q := range qs {
			d := g.Decide(q)
			if before[i].Use {
				require.True(t, d.Use, "seed %d: %+v left the gateway when rule %d rose", seed, q, k)
			}
			if d.Use != before[i].Use {
				require.Equal(t, k, d.Rule)
			}
		}

		// 0% and 100% everywhere: exact
		for _, p := range []float64{0, 100} {
			c := cfg
			c.Rules = slices.Clone(cfg.Rules)
			for i := range c.Rules {
				c.Rules[i].Percent = p
			}
			require.NoError(t, g.SetConfig(c))
			for _, q := range qs {
				d := g.Decide(q)
				if d.Reason == rollout.ReasonHeld || d.Reason == rollout.ReasonRamped {
					require.Equal(t, p == 100, d.Use, "percent %v: %+v", p, q)
				}
			}
		}

		// the kill switch wins, and turning it off restores the routing
		killed := cfg
		killed.Kill = true
		require.NoError(t, f.SetConfig(killed))
		for _, q := range qs {
			require.Equal(t, rollout.Decision{Reason: rollout.ReasonKilled, Rule: -1}, f.Decide(q))
		}
		require.NoError(t, f.SetConfig(cfg))
		for i, q := range qs {
			require.Equal(t, before[i], f.Decide(q))
		}
		require.Equal(t, cfg, f.Config())
	}
}

// TestPropShareRouted: over many units, the share routed by a rule is within a
// point of its percentage.
func TestPropShareRouted(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10 {
		p := float64(rng.IntN(10001)) / 100
		f := mustNew(t, rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: p, Salt: fmt.Sprint(rng.Uint64())}}})
		n, in := 20000, 0
		for i := range n {
			if f.Use(rollout.Query{Service: "s", Key: fmt.Sprint("k", i)}) {
				in++
			}
		}
		require.InDelta(t, p, 100*float64(in)/float64(n), 1, "percent %v", p)
	}
}

// TestPropSaltSameSide: with no salt, a unit is on the same side for every prefix of
// a service at equal percentages.
func TestPropSaltSameSide(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		p := float64(rng.IntN(10001)) / 100
		f := mustNew(t, rollout.Config{Rules: []rollout.Rule{
			{Service: "s", Prefix: "x:", Percent: p}, {Service: "s", Prefix: "y:", Percent: p}, {Service: "s", Percent: p},
		}})
		for i := range 50 {
			u := fmt.Sprint("c", i)
			a := f.Use(rollout.Query{Service: "s", Key: "x:1", Unit: u})
			require.Equal(t, a, f.Use(rollout.Query{Service: "s", Key: "y:2", Unit: u}))
			require.Equal(t, a, f.Use(rollout.Query{Service: "s", Key: "z", Unit: u}))
		}
	}
}

// TestBucketAgainstRoundedPercent: the documented "Use == Bucket < Percent*100"
// did not hold below the basis-point resolution: at 33.333% a unit in bucket 3333
// (< 3333.3) is held back, since the rule routes buckets below round(3333.3) =
// 3333. The doc now says the percentage is rounded to the nearest basis point.
func TestBucketAgainstRoundedPercent(t *testing.T) {
	f := mustNew(t, rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 33.333}}})
	d := f.Decide(rollout.Query{Service: "s", Key: "k7537"})
	require.Equal(t, uint32(3333), d.Bucket)
	require.False(t, d.Use)
}
