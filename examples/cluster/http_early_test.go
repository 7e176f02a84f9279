package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNonLoopbackDashboardRefusedFirst: a -http address that is not on
// loopback was refused only once the plane started, after the gateway's
// build, the shards, every gateway and the load's warm-up (tens of seconds),
// and a failure on the way (here, a gateway binary that does not exist)
// hid the refusal. It is refused before anything starts now.
func TestNonLoopbackDashboardRefusedFirst(t *testing.T) {
	c, err := Start(context.Background(), Spec{HTTP: "0.0.0.0:0", GatewayBin: t.TempDir() + "/no-gateway"})
	require.Error(t, err)
	assert.Nil(t, c)
	assert.ErrorContains(t, err, "not a loopback address")
}
