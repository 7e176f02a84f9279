package controlplane_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// New weighted a gateway by its cores over its region's median without the
// balancer's bounds (AddGateway applies them): a 1-core gateway among 32-core
// ones started at 1/32, below the balancer's MinWeight (0.05), so the first
// tick raised it with no signal at all, publishing a new version and moving
// keys although nothing had been measured.
func TestNewWeightsWithinBalancerBounds(t *testing.T) {
	idle := controlplane.PollerFunc(func(context.Context, controlplane.Gateway) (controlplane.Sample, error) {
		return controlplane.Sample{UptimeSeconds: 10, GOMAXPROCS: 1}, nil // no CPU: no signal
	})
	p, err := controlplane.New(controlplane.Config{Regions: []controlplane.Region{{Name: "eu"}}, Poller: idle,
		Gateways: []controlplane.Gateway{
			{ID: "small", Region: "eu", RESP: "127.0.0.1:6380", HTTP: "127.0.0.1:6381", Cores: 1},
			{ID: "big-1", Region: "eu", RESP: "127.0.0.1:6390", HTTP: "127.0.0.1:6391", Cores: 32},
			{ID: "big-2", Region: "eu", RESP: "127.0.0.1:6400", HTTP: "127.0.0.1:6401", Cores: 32},
		}})
	require.NoError(t, err)
	before := p.State()
	for k := 1; k <= 3; k++ {
		require.NoError(t, p.Tick(context.Background(), t0.Add(time.Duration(k)*time.Second)))
	}
	after := p.State()
	assert.Equal(t, before.Version, after.Version, "an idle tier's first ticks published a new version")
	for i, h := range after.Hosts {
		assert.Equal(t, before.Hosts[i].Weight, h.Weight, "%s: weight moved without a signal", h.ID)
	}
	assert.InDelta(t, 0.05, before.Hosts[0].Weight, 1e-12, "the small gateway starts at the balancer's MinWeight")
}
