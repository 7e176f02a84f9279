package controlplane_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// Gateways added between two ticks were each weighted against the region's
// median weight per core including the gateways added just before them,
// which the balancer's next run leaves out (it places every new host against
// the hosts it already runs): a region filled through the API, three 1-core
// gateways into an empty region, was published at weights 1, 0.85 and 0.79,
// and the first tick, with no signal at all, evened them out and moved keys.
// Found by a review.
func TestAddedGatewaysKeepTheirSharesAtTheNextTick(t *testing.T) {
	idle := controlplane.PollerFunc(func(context.Context, controlplane.Gateway) (controlplane.Sample, error) {
		return controlplane.Sample{UptimeSeconds: 10, GOMAXPROCS: 1}, nil // no CPU: no signal
	})
	p, err := controlplane.New(controlplane.Config{Poller: idle,
		Regions:  []controlplane.Region{{Name: "eu"}, {Name: "us"}},
		Gateways: []controlplane.Gateway{gw("us", 1, 1)}})
	require.NoError(t, err)
	require.NoError(t, p.Tick(context.Background(), t0.Add(time.Second)))
	for i := 1; i <= 3; i++ {
		require.NoError(t, p.AddGateway(gw("eu", i, 1)))
	}
	shares := func() map[string]float64 {
		r, _ := p.Routes()
		out := map[string]float64{}
		for i := 1; i <= 3; i++ {
			s, ok := r.Gateways["eu"].Share(gw("eu", i, 1).RESP)
			require.True(t, ok)
			out[fmt.Sprint(i)] = s
		}
		return out
	}
	before := shares()
	for k := 2; k <= 4; k++ {
		require.NoError(t, p.Tick(context.Background(), t0.Add(time.Duration(k)*time.Second)))
	}
	assert.Equal(t, before, shares(), "the first ticks moved keys between the added gateways without a signal")
}
