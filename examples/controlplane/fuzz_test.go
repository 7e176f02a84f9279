package controlplane_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/examples/controlplane"
	"github.com/tierkit/tierkit/rollout"
)

// FuzzDecodeRoutes decodes arbitrary routes documents: no panic; a document that
// decodes has a version, the parts DecodeRoutes requires (gateways, a failover
// table, rollout flags), a non-empty ring per named region, valid failover
// shares, direct shards with addresses, and routes a thin client accepts.
func FuzzDecodeRoutes(f *testing.F) {
	// The smallest rings keep the seed document short (about 1.8 KB rather than
	// 22 KB with the default 2^12 slots): the fuzzer minimizes every new input
	// it finds, the executions a minimization takes grow with its length, and
	// with the default rings it spent the whole run on the first one.
	p, ft := twoRegionsSlots(f, 2.8, 1<<8)
	k := 0
	run(f, p, ft, &k, 5)
	_ = p.SetRollout(rollout.Config{Rules: []rollout.Rule{{Service: "s", Prefix: "u:", Percent: 30, Regions: []string{"eu"}}}})
	_ = p.Drain("us-1")
	f.Add(wireOf(f, p))
	f.Add([]byte(`{"version": 1, "gateways": {}, "rollout": {}}`))
	f.Add([]byte(`{"version": 2, "gateways": {"eu": "aHJpbmcx"}, "failover": {"routes": []}}`))
	f.Add([]byte(`{"version": 3, "failover": {"routes": [{"from": "eu", "to": "us", "share": 0.4, "mechanism": "ring"}]}}`))
	c, err := client.New(client.Config{Service: "s", Region: "eu"})
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, v, err := controlplane.DecodeRoutes(data)
		if err != nil {
			require.ErrorIs(t, err, controlplane.ErrBadRoutes)
			return
		}
		require.Positive(t, v)
		require.NotNil(t, r.Gateways, "no gateways member, yet decoded")
		require.NotNil(t, r.Failover, "no failover table, yet decoded")
		require.NotContains(t, r.Direct, "", "a direct shard without an address")
		for region, ring := range r.Gateways {
			require.NotEmpty(t, region)
			require.Positive(t, ring.Len())
		}
		sum := map[string]float64{}
		for _, rt := range r.Failover.Routes {
			require.True(t, rt.Share > 0 && rt.Share <= 1)
			sum[rt.From] += rt.Share
		}
		for _, s := range sum {
			require.LessOrEqual(t, s, 1+1e-9)
		}
		require.NotNil(t, r.Rollout)
		require.NoError(t, c.SetRoutes(r))
	})
}
