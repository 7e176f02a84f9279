package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/internal/leak"
)

// TestPlaneServesLoopbackNamesOnly: the cluster's dashboard and plane API
// (unauthenticated: rollout, drain, add a gateway that every client then
// sends its tenant's password to) answered any Host, so a web page whose
// domain an attacker resolves to 127.0.0.1 could drive it from the
// operator's browser (DNS rebinding), on the well-known default port; and
// -http accepted a non-loopback address, serving it to the network. The
// plane answers the loopback names only now, and a non-loopback address is
// refused.
func TestPlaneServesLoopbackNamesOnly(t *testing.T) {
	leak.Check(t)
	newCluster := func(addr string) *Cluster {
		spec := DefaultSpec()
		spec.HTTP = addr
		return &Cluster{Spec: spec.withDefaults(), Shards: []string{"127.0.0.1:1"}, hc: &http.Client{Timeout: 2 * time.Second}}
	}
	c := newCluster("127.0.0.1:0")
	require.NoError(t, c.listen())
	require.NoError(t, c.startPlane())
	defer c.Close()
	get := func(host string) int {
		req, err := http.NewRequest(http.MethodGet, c.PlaneURL+"/api/state", nil)
		require.NoError(t, err)
		req.Host = host
		resp, err := c.hc.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusOK, get("127.0.0.1:7070"))
	assert.Equal(t, http.StatusOK, get("localhost:7070"))
	assert.Equal(t, http.StatusForbidden, get("rebound.example:7070"), "a rebound name is refused")

	wide := newCluster("0.0.0.0:0")
	defer wide.Close()
	assert.ErrorContains(t, wide.listen(), "not a loopback address")
}
