package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFloodShedFigure: noisy-tenant's per-gateway figure read "eu-1 252 of
// 161/s offered": a count of 3 s of sheds over a rate, as if a gateway shed
// more requests than it was offered. Both sides are counts of the window now,
// with the rate beside them.
func TestFloodShedFigure(t *testing.T) {
	state := func(s string) HostState {
		var h HostState
		require.NoError(t, json.Unmarshal([]byte(s), &h))
		return h
	}
	c := &Cluster{Spec: Spec{Regions: []string{"eu"}}, Gateways: []*gatewayProc{{ID: "eu-1", Region: "eu"}}}
	before := map[string]HostState{"eu-1": state(`{"uptime_seconds":100,"shed":0,"tenants":{"t00":{"requests":10},"t01":{"requests":10}}}`)}
	after := map[string]HostState{"eu-1": state(`{"uptime_seconds":103,"shed":252,"tenants":{"t00":{"requests":433,"shed":252},"t01":{"requests":70}}}`)}
	r := &Report{}
	sheds := checkFloodShed(c, r, "t00", 80, before, after)
	assert.True(t, r.OK(), r.Failures)
	assert.Equal(t, []string{"eu-1 shed 252 of 483 offered (161/s)"}, sheds)
}
