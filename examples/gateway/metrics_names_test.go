package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTenantMetricNames: two valid tenant names that sanitize alike (a-b and
// a.b) used to register one metric name twice and panic at start.
func TestTenantMetricNames(t *testing.T) {
	require.NotPanics(t, func() {
		_ = buildFromJSON(t, []byte(`{"tenants": [{"name": "a-b"}, {"name": "a.b"}]}`))
	})
}
