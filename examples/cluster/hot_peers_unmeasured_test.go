package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEvensOutNeedsMeasuredPeers: hot-gateway's "the load evens out" check
// compared the hot host's CPU with its peers' mean, and the ratio read 0
// when the peers' CPU summed to 0 (not yet measured, or no peer in the
// window): 0 <= 1.35, so the check passed on peers it never measured.
func TestEvensOutNeedsMeasuredPeers(t *testing.T) {
	for _, tc := range []struct {
		name string
		cpu  map[string]float64
		want bool
	}{
		{"even", map[string]float64{"eu-1": 0.50, "eu-2": 0.45, "eu-3": 0.48}, true},
		{"still hot", map[string]float64{"eu-1": 0.90, "eu-2": 0.40, "eu-3": 0.40}, false},
		{"peers unmeasured", map[string]float64{"eu-1": 0.90, "eu-2": 0, "eu-3": 0}, false},
		{"no peers", map[string]float64{"eu-1": 0.90}, false},
		{"hot host idle, peers busy", map[string]float64{"eu-1": 0, "eu-2": 0.40, "eu-3": 0.40}, true},
	} {
		w := hostWindow{cpu: tc.cpu, ticks: 3}
		assert.Equal(t, tc.want, w.evensOut("eu-1", 1.35), tc.name)
	}
}
