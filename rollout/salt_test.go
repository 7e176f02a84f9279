package rollout_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/rollout"
)

// routedKeys reports, for keys k0..k(n-1) of service s, which ones rule r routes.
func routedKeys(t *testing.T, r rollout.Rule, n int) []bool {
	t.Helper()
	f := mustNew(t, rollout.Config{Rules: []rollout.Rule{r}})
	out := make([]bool, n)
	for i := range out {
		out[i] = f.Use(rollout.Query{Service: r.Service, Key: fmt.Sprint("k", i)})
	}
	return out
}

// TestSaltDrawsFreshPopulation pins Rule.Salt's doc: "Empty means Service"
// (the same keys as Salt set to the service name), and "Change it to draw a
// fresh population": under another salt the routed keys are independent of
// the first ones, so at 50% about a quarter of all keys are routed under
// both, and at 10% about one in a hundred.
func TestSaltDrawsFreshPopulation(t *testing.T) {
	const n = 20000
	for _, pct := range []float64{10, 50} {
		def := routedKeys(t, rollout.Rule{Service: "s", Percent: pct}, n)
		require.Equal(t, def, routedKeys(t, rollout.Rule{Service: "s", Percent: pct, Salt: "s"}, n),
			"an empty salt is the service name")
		for _, salt := range []string{"exp-2", "t"} {
			other := routedKeys(t, rollout.Rule{Service: "s", Percent: pct, Salt: salt}, n)
			both := 0
			for i := range n {
				if def[i] && other[i] {
					both++
				}
			}
			want := pct * pct / 100 // percent of keys routed under both salts
			assert.InDelta(t, want, 100*float64(both)/n, 1, "percent %v, salt %q", pct, salt)
		}
	}
}
