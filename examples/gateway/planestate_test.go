package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/internal/leak"
)

// The "host" state the control plane polls counts the process's CPU, its uptime,
// the commands served and each tenant's requests, under the JSON names the plane
// reads (examples/controlplane's Sample).
func TestHostState(t *testing.T) {
	leak.Check(t)
	in := startGateway(t, Config{})
	c := client(t, in, nil)
	ctx := context.Background()
	require.NoError(t, c.Ping(ctx).Err()) // the client's set-up commands and a PING: commands, not requests
	before := in.gw.n.allCommands()
	for range 20 {
		require.NoError(t, c.Set(ctx, "k", "v", 0).Err())
	}
	st, ok := in.reg.State()["host"].(hostState)
	require.True(t, ok, "no host state registered")
	data, err := json.Marshal(st)
	require.NoError(t, err)
	var h struct {
		CPU      float64 `json:"cpu_seconds"`
		Uptime   float64 `json:"uptime_seconds"`
		Procs    int     `json:"gomaxprocs"`
		InFlight *int    `json:"in_flight"`
		Commands uint64  `json:"commands"`
		Shed     *uint64 `json:"shed"`
		Tenants  map[string]struct {
			Requests uint64 `json:"requests"`
		} `json:"tenants"`
	}
	require.NoError(t, json.Unmarshal(data, &h))
	assert.Positive(t, h.CPU)
	assert.Positive(t, h.Uptime)
	assert.Positive(t, h.Procs)
	require.NotNil(t, h.InFlight)
	assert.Zero(t, *h.InFlight)
	require.NotNil(t, h.Shed)
	assert.Equal(t, before+20, h.Commands, "the 20 SETs after the set-up")
	assert.Equal(t, uint64(20), h.Tenants["default"].Requests, "the 20 SETs, the tenant's only data commands")
}
