package rollout_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/rollout"
)

func mustNew(t testing.TB, cfg rollout.Config) *rollout.Flags {
	t.Helper()
	f, err := rollout.New(cfg)
	require.NoError(t, err)
	return f
}

func TestDecideTable(t *testing.T) {
	cfg := rollout.Config{Rules: []rollout.Rule{
		{Service: "feed", Prefix: "", Percent: 100},
		{Service: "feed", Prefix: "user:", Percent: 0},
		{Service: "feed", Prefix: "user:vip:", Percent: 100, Regions: []string{"eu-1"}},
		{Service: "ads", Prefix: "cmp:", Percent: 100},
	}}
	f := mustNew(t, cfg)
	tests := []struct {
		name string
		give rollout.Query
		want rollout.Decision
	}{
		{"unknown service", rollout.Query{Service: "x", Key: "k"}, rollout.Decision{Reason: rollout.ReasonNoRule, Rule: -1}},
		{"no prefix matches", rollout.Query{Service: "ads", Key: "other"}, rollout.Decision{Reason: rollout.ReasonNoRule, Rule: -1}},
		{"catch-all rule", rollout.Query{Service: "feed", Key: "post:1"}, rollout.Decision{Use: true, Reason: rollout.ReasonRamped, Rule: 0}},
		{"longer prefix wins at 0%", rollout.Query{Service: "feed", Key: "user:7"}, rollout.Decision{Reason: rollout.ReasonHeld, Rule: 1}},
		{"longest prefix, region ok", rollout.Query{Service: "feed", Key: "user:vip:7", Region: "eu-1"}, rollout.Decision{Use: true, Reason: rollout.ReasonRamped, Rule: 2}},
		{"longest prefix, region filtered", rollout.Query{Service: "feed", Key: "user:vip:7", Region: "us-1"}, rollout.Decision{Reason: rollout.ReasonRegion, Rule: 2}},
		{"empty region filtered", rollout.Query{Service: "feed", Key: "user:vip:7"}, rollout.Decision{Reason: rollout.ReasonRegion, Rule: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := f.Decide(tt.give)
			got.Bucket = 0 // hash value checked by the ramp tests
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestKillSwitchAndRestore(t *testing.T) {
	cfg := rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 37}}}
	f := mustNew(t, cfg)
	before := make([]bool, 2000)
	for i := range before {
		before[i] = f.Use(rollout.Query{Service: "s", Key: fmt.Sprint("k", i)})
	}
	cfg.Kill = true
	require.NoError(t, f.SetConfig(cfg))
	for i := range before {
		d := f.Decide(rollout.Query{Service: "s", Key: fmt.Sprint("k", i)})
		require.False(t, d.Use)
		require.Equal(t, rollout.ReasonKilled, d.Reason)
	}
	assert.True(t, f.Stats().Killed)
	cfg.Kill = false
	require.NoError(t, f.SetConfig(cfg))
	for i := range before {
		require.Equal(t, before[i], f.Use(rollout.Query{Service: "s", Key: fmt.Sprint("k", i)}), "key %d", i)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		give rollout.Config
		want string
	}{
		{"empty service", rollout.Config{Rules: []rollout.Rule{{Percent: 1}}}, "empty service"},
		{"negative", rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: -1}}}, "outside"},
		{"over 100", rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100.5}}}, "outside"},
		{"NaN", rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: math.NaN()}}}, "outside"},
		{"empty region", rollout.Config{Rules: []rollout.Rule{{Service: "s", Regions: []string{""}}}}, "empty region"},
		{"duplicate", rollout.Config{Rules: []rollout.Rule{{Service: "s", Prefix: "a"}, {Service: "s", Prefix: "a"}}}, "same service"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := rollout.New(tt.give)
			require.Error(t, err)
			assert.True(t, errors.Is(err, rollout.ErrInvalidConfig))
			assert.True(t, strings.HasPrefix(err.Error(), "rollout: "), err.Error())
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestSetConfigRejectKeepsOld(t *testing.T) {
	f := mustNew(t, rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}}})
	err := f.SetConfig(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 200}}})
	require.ErrorIs(t, err, rollout.ErrInvalidConfig)
	assert.True(t, f.Use(rollout.Query{Service: "s", Key: "k"}))
	st := f.Stats()
	assert.Equal(t, rollout.Stats{Swaps: 1, Rejected: 1, Rules: 1}, st)
}

func TestConfigIsCopied(t *testing.T) {
	regions := []string{"eu-1"}
	rules := []rollout.Rule{{Service: "s", Percent: 100, Regions: regions}}
	f := mustNew(t, rollout.Config{Rules: rules})
	regions[0] = "us-1"
	rules[0].Percent = 0
	assert.True(t, f.Use(rollout.Query{Service: "s", Key: "k", Region: "eu-1"}))
	got := f.Config()
	got.Rules[0].Regions[0] = "changed"
	assert.Equal(t, "eu-1", f.Config().Rules[0].Regions[0])
}

func TestZeroValueRoutesNothing(t *testing.T) {
	var f rollout.Flags
	assert.Equal(t, rollout.Decision{Reason: rollout.ReasonNoRule, Rule: -1}, f.Decide(rollout.Query{Service: "s"}))
	assert.Equal(t, rollout.Config{}, f.Config())
	assert.Equal(t, rollout.Stats{}, f.Stats())
}

// TestRampMonotonic: as the percentage rises, the set of routed keys only grows, and
// the routed share tracks the percentage within sampling error.
func TestRampMonotonic(t *testing.T) {
	const keys = 20000
	f := mustNew(t, rollout.Config{})
	prev := make([]bool, keys)
	for _, pct := range []float64{0, 0.01, 0.5, 1, 5, 10, 25, 33.33, 50, 75, 99, 99.99, 100} {
		require.NoError(t, f.SetConfig(rollout.Config{Rules: []rollout.Rule{{Service: "s", Prefix: "k", Percent: pct}}}))
		n := 0
		for i := range keys {
			use := f.Use(rollout.Query{Service: "s", Key: fmt.Sprint("k", i)})
			require.False(t, prev[i] && !use, "key %d left the gateway when percent rose to %v", i, pct)
			prev[i] = use
			if use {
				n++
			}
		}
		got := 100 * float64(n) / keys
		assert.InDelta(t, pct, got, 1.0, "routed share at %v%%", pct)
	}
}

// TestUnitKeepsClientOnOneSide: with Unit set, every key of one client gets the same
// answer.
func TestUnitKeepsClientOnOneSide(t *testing.T) {
	f := mustNew(t, rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 50}}})
	for c := range 200 {
		client := fmt.Sprint("client-", c)
		first := f.Use(rollout.Query{Service: "s", Key: "a", Unit: client})
		for k := range 20 {
			require.Equal(t, first, f.Use(rollout.Query{Service: "s", Key: fmt.Sprint("key", k), Unit: client}))
		}
	}
}

// TestManyRulesMatchesLinear checks the per-length map path (more than 8 rules in a
// service) against a naive longest-prefix scan.
func TestManyRulesMatchesLinear(t *testing.T) {
	var rules []rollout.Rule
	for i := range 40 {
		rules = append(rules, rollout.Rule{Service: "s", Prefix: strings.Repeat("a", i%7) + fmt.Sprint(i%10), Percent: float64(i) * 2.5})
	}
	rules = append(rules, rollout.Rule{Service: "s", Prefix: "", Percent: 50, Regions: []string{"r1"}})
	// drop duplicates (same prefix)
	seen := map[string]bool{}
	var uniq []rollout.Rule
	for _, r := range rules {
		if !seen[r.Prefix] {
			seen[r.Prefix] = true
			uniq = append(uniq, r)
		}
	}
	cfg := rollout.Config{Rules: uniq}
	f := mustNew(t, cfg)
	for i := range 5000 {
		key := strings.Repeat("a", i%9) + fmt.Sprint(i)
		q := rollout.Query{Service: "s", Key: key, Region: []string{"r1", "r2"}[i%2]}
		require.Equal(t, naiveDecide(cfg, q), f.Decide(q), "key %q", key)
	}
}

// TestRegionFilterNoFallback: the region filter applies to the rule the longest
// prefix picked; a client from another region stays off the gateway even when a
// broader rule of the service routes everyone (doc.go, Region filter).
func TestRegionFilterNoFallback(t *testing.T) {
	f := mustNew(t, rollout.Config{Rules: []rollout.Rule{
		{Service: "s", Percent: 100},
		{Service: "s", Prefix: "vip:", Percent: 100, Regions: []string{"eu-1"}},
	}})
	assert.Equal(t, rollout.Decision{Reason: rollout.ReasonRegion, Rule: 1},
		f.Decide(rollout.Query{Service: "s", Key: "vip:7", Region: "us-1"}))
	assert.True(t, f.Use(rollout.Query{Service: "s", Key: "vip:7", Region: "eu-1"}))
	assert.True(t, f.Use(rollout.Query{Service: "s", Key: "other", Region: "us-1"}))
}
