package rollout_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/rollout"
)

// fuzzPercents are the figures FuzzConfig draws a rule's Percent from: the
// edges of [0, 100] and of the basis-point rounding, and values beyond them.
var fuzzPercents = []float64{0, 5e-324, 0.004, 0.005, 0.01, 50, 99.995, 100, 100.00000000000001,
	math.Copysign(0, -1), -5e-324, -1, math.MaxFloat64, math.NaN(), math.Inf(1), math.Inf(-1)}

// fuzzConfigRules parses one rule per line, "service|prefix|percent|regions|salt",
// like fuzzRules, but keeps what validate refuses: an empty service, a
// duplicate (service, prefix), an empty region name (",," in regions), and
// any percent of fuzzPercents (the percent field's first byte picks it).
func fuzzConfigRules(spec string) []rollout.Rule {
	var rules []rollout.Rule
	for line := range strings.SplitSeq(spec, "\n") {
		if len(rules) == 24 {
			break
		}
		f := append(strings.Split(line, "|"), "", "", "", "", "")
		r := rollout.Rule{Service: f[0], Prefix: f[1], Salt: f[4]}
		if f[2] != "" {
			r.Percent = fuzzPercents[int(f[2][0])%len(fuzzPercents)]
		}
		if f[3] != "" {
			r.Regions = strings.Split(f[3], ",")
		}
		rules = append(rules, r)
	}
	return rules
}

// configValid is the reference for Config.validate.
func configValid(cfg rollout.Config) bool {
	seen := map[[2]string]bool{}
	for _, r := range cfg.Rules {
		k := [2]string{r.Service, r.Prefix}
		if r.Service == "" || !(r.Percent >= 0 && r.Percent <= 100) || slices.Contains(r.Regions, "") || seen[k] {
			return false
		}
		seen[k] = true
	}
	return true
}

// FuzzConfig: the Config is an operator's to change at runtime (SetConfig), so
// every field of every rule takes any value. New and SetConfig accept exactly
// the Configs configValid accepts and refuse the others with ErrInvalidConfig;
// a refused SetConfig keeps the Config, the decisions and the swap count; an
// accepted one is copied (changing the caller's slices afterwards changes
// nothing), and decides every query as the naive reference does.
func FuzzConfig(f *testing.F) {
	f.Add("feed|user:|4|eu,us\nfeed||7", "feed|user:|8\n|x|0", false, "feed", "user:1", "eu", "")
	f.Add("s||\x00\ns||\x01", "s|a|\x02|r,,q", true, "s", "a", "q", "u")
	f.Add("s|k|\x0d|r\nt|k|\x0e", "s|k|\x0f\ns|k2|\x03|r|salt", false, "s", "k2", "r", "")
	f.Fuzz(func(t *testing.T, spec, spec2 string, kill bool, service, key, region, unit string) {
		cfg := rollout.Config{Rules: fuzzConfigRules(spec), Kill: kill}
		cfg2 := rollout.Config{Rules: fuzzConfigRules(spec2), Kill: !kill}
		q := rollout.Query{Service: service, Key: key, Region: region, Unit: unit}
		fl, err := rollout.New(cfg)
		if !configValid(cfg) {
			require.True(t, errors.Is(err, rollout.ErrInvalidConfig), "%v", err)
			require.Nil(t, fl)
			fl, cfg = mustNew(t, rollout.Config{}), rollout.Config{}
		} else {
			require.NoError(t, err)
		}
		before, st, d := fl.Config(), fl.Stats(), fl.Decide(q)
		err = fl.SetConfig(cfg2)
		if !configValid(cfg2) {
			require.True(t, errors.Is(err, rollout.ErrInvalidConfig), "%v", err)
			require.Equal(t, before, fl.Config(), "a refused SetConfig changed the Config")
			require.Equal(t, d, fl.Decide(q), "a refused SetConfig changed a decision")
			require.Equal(t, st.Swaps, fl.Stats().Swaps)
			require.Equal(t, st.Rejected+1, fl.Stats().Rejected)
			require.Equal(t, naiveDecide(cfg, q), fl.Decide(q))
			return
		}
		require.NoError(t, err)
		want := naiveDecide(cfg2, q)
		require.Equal(t, want, fl.Decide(q))
		require.Less(t, want.Bucket, uint32(10000))
		require.Equal(t, st.Swaps+1, fl.Stats().Swaps)
		require.Equal(t, rollout.Stats{Swaps: st.Swaps + 1, Rejected: st.Rejected, Rules: len(cfg2.Rules), Killed: cfg2.Kill}, fl.Stats())
		for i := range cfg2.Rules { // the caller's slices are its own
			cfg2.Rules[i].Percent = 100 - cfg2.Rules[i].Percent
			for j := range cfg2.Rules[i].Regions {
				cfg2.Rules[i].Regions[j] += "x"
			}
		}
		require.Equal(t, want, fl.Decide(q), "changing the caller's Config changed a decision")
	})
}
