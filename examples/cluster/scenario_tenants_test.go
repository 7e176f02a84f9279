package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoisyTenantNeedsTwoTenants: "-tenants 1 -scenario noisy-tenant" (or
// -scenario all) passed parseFlags, which allows 1 to 100 tenants, and the
// command built the gateway, started the shards, the gateways, the load and
// the plane (and under "all" ran two scenarios) before noisy-tenant refused
// to run without a second tenant to watch: exit 1, the status of a failed
// scenario, tens of seconds later. The combination is a usage error now,
// refused before anything starts. Found by a review.
func TestNoisyTenantNeedsTwoTenants(t *testing.T) {
	const want = "cluster: noisy-tenant needs at least 2 tenants (got 1)"
	for _, args := range [][]string{
		{"-tenants", "1", "-scenario", "noisy-tenant"},
		{"-tenants", "1", "-scenario", "all"},
		{"-scenario", "rollout,noisy-tenant", "-tenants", "1"},
	} {
		var errOut bytes.Buffer
		_, err := parseFlags(args, &errOut)
		assert.EqualError(t, err, want, "%q", args)
		assert.Equal(t, want+"\n", errOut.String(), "%q", args)
	}
	for _, args := range [][]string{{"-tenants", "1", "-scenario", "rollout,killed-gateway"}, {"-tenants", "2", "-scenario", "all"}, {"-tenants", "1"}} {
		_, err := parseFlags(args, &bytes.Buffer{})
		assert.NoError(t, err, "%q", args)
	}

	// run refuses it too, before Start: were the spec taken, Start would
	// fail later on the binary that does not exist.
	err := run(context.Background(), "noisy-tenant", Spec{Tenants: 1, HTTP: "127.0.0.1:0", GatewayBin: t.TempDir() + "/no-gateway"}, false, true)
	require.Error(t, err)
	assert.EqualError(t, err, want)
}
