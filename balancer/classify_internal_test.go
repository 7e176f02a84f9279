package balancer

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// internalView builds the view of one run over hosts present from the start.
func internalView(cfg Config, hosts []Host) *view {
	age := make([]int, len(hosts))
	for i := range age {
		age[i] = math.MaxInt
	}
	return newView(cfg, hosts, age, make([]bool, len(hosts)))
}

// TestRegionSkewDeterministic: the same hosts give the same eta bit for bit. The
// between-region sum ran in map order, so eta changed in its last bits from run to
// run, and a tier with eta at RegionEta was classified one way or the other at
// random.
func TestRegionSkewDeterministic(t *testing.T) {
	var hosts []Host
	for i := range 60 {
		r := i % 6
		hosts = append(hosts, Host{ID: fmt.Sprint("h", i), Region: fmt.Sprint("r", r), Cores: 32,
			Weight: 1 + 0.013*float64(i%7), CPU: 0.5 + 0.031*float64(r) + 0.007*float64(i%5)})
	}
	v := internalView(Config{}.withDefaults(), hosts)
	spread0, eta0, ok := regionSkew(v)
	require.True(t, ok)
	for range 200 {
		spread, eta, _ := regionSkew(v)
		require.Equal(t, math.Float64bits(spread0), math.Float64bits(spread))
		require.Equal(t, math.Float64bits(eta0), math.Float64bits(eta), "eta %v then %v", eta0, eta)
	}
}

// TestBimodalSeparationIsStrict: BimodalSeparation is the distance "above which the
// tier is bimodal", as every other "above which" threshold of Config is strict; a
// separation of exactly BimodalSeparation was called bimodal.
func TestBimodalSeparationIsStrict(t *testing.T) {
	var hosts []Host
	for i := range 40 {
		cpu := 0.5 + 0.002*float64(i%5)
		if i%2 == 0 {
			cpu += 0.3
		}
		hosts = append(hosts, Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: 1, CPU: cpu})
	}
	cfg := Config{}.withDefaults()
	sep, _ := bimodality(cfg, internalView(cfg, hosts))
	require.Greater(t, sep, 1.0)
	cfg.BimodalSeparation = sep
	state, ev := classify(cfg, internalView(cfg, hosts))
	require.NotEqual(t, BimodalLoad, state, "%s", ev)
	cfg.BimodalSeparation = math.Nextafter(sep, 0)
	state, ev = classify(cfg, internalView(cfg, hosts))
	require.Equal(t, BimodalLoad, state, "%s", ev)
}
