package main

import (
	"flag"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHTTPFlagUsageNamesMetrics: -http's help names every endpoint the
// address serves. It named /control and /debug/pprof, not /metrics, which
// the README lists there too.
func TestHTTPFlagUsageNamesMetrics(t *testing.T) {
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	settingFlags(fs)
	f := fs.Lookup("http")
	require.NotNil(t, f)
	for _, path := range []string{"/control", "/metrics", "/debug/pprof"} {
		require.Contains(t, f.Usage, path)
	}
}
