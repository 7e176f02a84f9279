package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConfigControlHostsStarAlone: "*" (any Host) is control_hosts' only
// entry or none. Beside other names it was taken for a host named "*",
// which no request has: ["gw.internal", "*"], meant to answer any Host,
// answered only gw.internal, silently.
func TestConfigControlHostsStarAlone(t *testing.T) {
	_, err := Config{ControlHosts: []string{"gw.internal", "*"}}.withDefaults()
	require.ErrorContains(t, err, "control_hosts")
	for _, hosts := range [][]string{nil, {"*"}, {"gw.internal", "localhost"}} {
		_, err := Config{ControlHosts: hosts}.withDefaults()
		require.NoError(t, err, "%q", hosts)
	}
}
