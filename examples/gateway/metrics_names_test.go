package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTenantMetricNames: two valid tenant names that sanitize alike (a-b and
// a.b) used to register one metric name twice and panic at start. The build
// must succeed, and each tenant have its series: a build refused before the
// metrics were made passed without testing them.
func TestTenantMetricNames(t *testing.T) {
	c, err := decodeConfig([]byte(`{"tenants": [{"name": "a-b"}, {"name": "a.b"}]}`))
	require.NoError(t, err)
	c, err = c.withDefaults()
	require.NoError(t, err)
	b, err := newMemkvBackend(c.Backend.Shards)
	require.NoError(t, err)
	var g *Gateway
	require.NotPanics(t, func() { g, err = newGateway(c, b, nil) })
	require.NoError(t, err)
	defer func() { require.NoError(t, g.Close()) }()
	for _, name := range []string{"a-b", "a.b"} {
		require.NotNil(t, series(t, g, "gateway_quota_tokens", map[string]string{"tenant": name}), name)
	}
}
