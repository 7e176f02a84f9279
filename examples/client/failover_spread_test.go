package client_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/failover"
	"github.com/tierkit/tierkit/hashring"
)

// TestFailoverByKeySpreadsOverBackupRing checks that the keys a client without
// a Unit sends to a backup region spread over that region's ring as all keys
// do, and that the keys staying home spread over the home ring. The failover
// pick and the ring slot must not read the same bits of one hash: a ring gives
// each host contiguous slot ranges, so the keys spilled (a low hash) would all
// land on the hosts owning the low slots.
func TestFailoverByKeySpreadsOverBackupRing(t *testing.T) {
	ra, err := hashring.New(hashring.Config{}, []hashring.Node{{ID: "a1:1", Weight: 1}, {ID: "a2:1", Weight: 1}})
	require.NoError(t, err)
	rb, err := hashring.New(hashring.Config{}, []hashring.Node{{ID: "b1:1", Weight: 1}, {ID: "b2:1", Weight: 1}})
	require.NoError(t, err)
	table := &failover.Table{Routes: []failover.Route{{From: "a", To: "b", Share: 0.4, Mechanism: failover.MechRing}}}
	c := newClient(t, client.Config{})
	require.NoError(t, c.SetRoutes(client.Routes{Gateways: map[string]*hashring.Ring{"a": ra, "b": rb}, Failover: table, Rollout: flags(t, 100, false)}))
	const n = 10000
	hosts := map[string]int{}
	inB := 0
	for i := range n {
		tg, err := c.Route(fmt.Sprint("user:", i))
		require.NoError(t, err)
		hosts[tg.Host]++
		if tg.Region == "b" {
			inB++
		}
	}
	assert.InDelta(t, 0.4, float64(inB)/n, 0.02)
	for _, h := range []string{"b1:1", "b2:1"} {
		assert.InDelta(t, 0.5, float64(hosts[h])/float64(inB), 0.05, "share of region b's keys on %s: %v", h, hosts)
	}
	for _, h := range []string{"a1:1", "a2:1"} {
		assert.InDelta(t, 0.5, float64(hosts[h])/float64(n-inB), 0.05, "share of region a's keys on %s: %v", h, hosts)
	}
}
