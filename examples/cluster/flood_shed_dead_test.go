package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFloodShedGatewayNotMeasured: Hosts skips a gateway that no longer
// runs, so a gateway that died during noisy-tenant's flood had a state
// before it and none after. checkFloodShed subtracted the counts it had
// before from the zero state, in uint64: eu-1, which had shed 3 of t00's
// requests before the flood (hot-gateway tolerates a few), read as having
// shed 18446744073709551613 of them, which made "the flood is shed in
// region eu too" pass although eu-2, the region's only gateway measured,
// shed none. A gateway without both states now has no figure beyond saying
// so and counts for no check, as cpuPerCommand does for hot-gateway.
func TestFloodShedGatewayNotMeasured(t *testing.T) {
	state := func(s string) HostState {
		var h HostState
		require.NoError(t, json.Unmarshal([]byte(s), &h))
		return h
	}
	c := &Cluster{Spec: Spec{Regions: []string{"eu"}},
		Gateways: []*gatewayProc{{ID: "eu-1", Region: "eu"}, {ID: "eu-2", Region: "eu"}}}
	before := map[string]HostState{
		"eu-1": state(`{"uptime_seconds":100,"shed":3,"tenants":{"t00":{"requests":50,"shed":3}}}`),
		"eu-2": state(`{"uptime_seconds":100,"shed":0,"tenants":{"t00":{"requests":50}}}`),
	}
	after := map[string]HostState{ // eu-1 died: Hosts read none of it
		"eu-2": state(`{"uptime_seconds":103,"shed":0,"tenants":{"t00":{"requests":200}}}`),
	}
	r := &Report{}
	sheds := checkFloodShed(c, r, "t00", 80, before, after)
	assert.Equal(t, []string{"eu-1 not measured (not running)", "eu-2 shed 0 of 150 offered (50/s)"}, sheds)
	assert.Contains(t, r.Failures, "the flood is shed in region eu too", "eu-2 shed none of the flood")
	for _, f := range r.Failures {
		assert.False(t, strings.Contains(f, "gateway eu-1"), "eu-1 was not measured: %s", f)
	}
}
