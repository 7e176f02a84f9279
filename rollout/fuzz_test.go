package rollout_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/rollout"
)

// FuzzDecide builds a config from the fuzzer's bytes and checks, for an arbitrary
// query: Decide never panics, agrees with the naive reference, and an eligible query
// is never routed at 0% and always routed at 100%.
func FuzzDecide(f *testing.F) {
	f.Add("feed", "user:", "user:42", "eu-1", "", uint16(5000), "eu-1,us-2", false)
	f.Add("s", "", "", "", "client", uint16(0), "", false)
	f.Add("s", "k", "k", "r", "", uint16(10000), "r", true)
	f.Add("x", "abc", "ab", "", "", uint16(9999), ",", false)
	f.Fuzz(func(t *testing.T, service, prefix, key, region, unit string, bp uint16, regions string, kill bool) {
		if service == "" {
			service = "s"
		}
		pct := float64(bp%10001) / 100
		var regs []string
		for _, r := range strings.Split(regions, ",") {
			if r != "" {
				regs = append(regs, r)
			}
		}
		cfg := rollout.Config{Kill: kill, Rules: []rollout.Rule{
			{Service: service, Prefix: prefix, Percent: pct, Regions: regs},
			{Service: service, Prefix: prefix + "/", Percent: 100 - pct},
		}}
		fl, err := rollout.New(cfg)
		require.NoError(t, err)
		q := rollout.Query{Service: service, Key: key, Region: region, Unit: unit}
		d := fl.Decide(q)
		require.Equal(t, naiveDecide(cfg, q), d)
		require.Less(t, d.Bucket, uint32(10000))
		require.Equal(t, d.Reason == rollout.ReasonRamped, d.Use)

		for _, p := range []float64{0, 100} {
			cfg.Rules[0].Percent, cfg.Rules[1].Percent = p, p
			require.NoError(t, fl.SetConfig(cfg))
			d := fl.Decide(q)
			eligible := d.Reason == rollout.ReasonHeld || d.Reason == rollout.ReasonRamped
			if eligible {
				require.Equal(t, p == 100, d.Use, "percent %v: %+v", p, d)
			}
		}
	})
}
