package rollout_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/rollout"
)

// FuzzPercent drives a rule's Percent through arbitrary float64 values (the
// other fuzz targets use whole basis points): a NaN, an infinity or a value
// outside [0, 100] is refused with ErrInvalidConfig and leaves the Flags in
// force untouched; any other value decides as the naive reference does, and
// raising it never takes the gateway away from a unit that had it.
func FuzzPercent(f *testing.F) {
	f.Add(50.0, 0.004, "user:1", "")
	f.Add(0.004999, 0.0, "k", "u")
	f.Add(99.995, 1e-300, "x", "")
	f.Add(math.Inf(1), 1.0, "k", "")
	f.Add(math.NaN(), 0.5, "k", "")
	f.Add(math.Copysign(0, -1), 100.0, "", "")
	f.Add(100.00000000000001, 0.0, "k", "")
	f.Fuzz(func(t *testing.T, pct, raise float64, key, unit string) {
		base := rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 25}}}
		fl, err := rollout.New(base)
		require.NoError(t, err)
		q := rollout.Query{Service: "s", Key: key, Unit: unit}
		before := fl.Decide(q)

		cfg := rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: pct}}}
		err = fl.SetConfig(cfg)
		if math.IsNaN(pct) || pct < 0 || pct > 100 {
			require.True(t, errors.Is(err, rollout.ErrInvalidConfig), "percent %v: %v", pct, err)
			require.Equal(t, before, fl.Decide(q), "a refused config changed the decision")
			_, err = rollout.New(cfg)
			require.True(t, errors.Is(err, rollout.ErrInvalidConfig), "New, percent %v: %v", pct, err)
			return
		}
		require.NoError(t, err)
		d := fl.Decide(q)
		require.Equal(t, naiveDecide(cfg, q), d, "percent %v", pct)

		if math.IsNaN(raise) || raise <= 0 {
			return
		}
		higher := math.Min(100, pct+raise)
		cfg.Rules[0].Percent = higher
		require.NoError(t, fl.SetConfig(cfg))
		if d.Use {
			require.True(t, fl.Decide(q).Use, "raising %v to %v took the unit away", pct, higher)
		}
	})
}
