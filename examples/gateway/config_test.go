package main

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConfigValues runs configuration files through the decoding, the
// defaults and the range checks: every bad value is refused with an error
// that names it, and what passes builds a gateway on the embedded backend.
func TestConfigValues(t *testing.T) {
	for _, tc := range []struct {
		json string
		err  string // "" if accepted
	}{
		{`{}`, ""},
		{`{"backend": {"shards": 16}, "target_cpu": 1, "limits": {"max_conns": 1, "idle_timeout": "1s"}}`, ""},
		{`{"tenants": [{"name": "a", "commands": ["get"]}]}`, ""},
		{`{"backend": {"shards": -1}}`, "backend shards -1"},
		{`{"backend": {"shards": 100000}}`, "backend shards 100000"},
		{`{"backend": {"pool": -1}}`, "backend pool -1"},
		{`{"target_cpu": 2}`, "target_cpu 2"},
		{`{"target_cpu": -0.5}`, "target_cpu -0.5"},
		{`{"limits": {"max_conns": -1}}`, "max_conns -1"},
		{`{"limits": {"max_args": -1}}`, "max_args -1"},
		{`{"limits": {"max_request_bytes": -1}}`, "max_request_bytes -1"},
		{`{"limits": {"max_pipeline": -2}}`, "max_pipeline -2"},
		{`{"limits": {"max_tx_commands": -1}}`, "max_tx_commands -1"},
		{`{"limits": {"idle_timeout": "-1s"}}`, "idle_timeout -1s"},
		{`{"limits": {"write_timeout": "-1ms"}}`, "write_timeout -1ms"},
		{`{"max_batch": -1}`, "max_batch -1: want 1 to 4096"},
		{`{"max_in_flight": -1}`, "max_in_flight -1: want 1 to 1048576"},
		{`{"max_queue": -1}`, "max_queue -1: want 1 to 1048576"},
		{`{"queue_deadline": "-1s"}`, "queue_deadline -1s: want 1ms to 10s"},
		{`{"linger": "-1ms"}`, "linger -1ms: want 1µs to 50ms"},
		{`{"request_timeout": "-1s"}`, "request_timeout -1s: want 1ms to 1m0s"},
		{`{"control_hosts": ["localhost:6381"]}`, "control_hosts: control: AllowedHosts entry"},
		{`{"min_limit": 10, "max_limit": 5}`, "min_limit 10 > max_limit 5"},
		{`{"min_limit": -1}`, "min_limit -1: want at least 1"},
		{`{"max_limit": -1}`, "max_limit -1: want at least 1"},
		{`{"min_limit": 100, "max_limit": -5}`, "max_limit -5: want at least 1"},
		{`{"hot_linger": "-1ms"}`, "hot_linger -1ms"},
		{`{"hot_linger": "1h"}`, "hot_linger 1h0m0s"},
		{`{"hot_linger": "-1ms", "no_hot_linger": true}`, "hot_linger -1ms"},
		{`{"hot_linger": "1h", "no_hot_linger": true}`, "hot_linger 1h0m0s"},
		{`{"hot_linger": "1ms", "no_hot_linger": true}`, ""},
		{`{"otel_sample": 1.5}`, "otel_sample 1.5"},
		{`{"cache_capacity": -1}`, "cache_capacity -1"},
		{`{"cache_staleness": "-1s"}`, "cache_staleness -1s: want >= 0"},
		{`{"cache_capacity": 10, "cache_staleness": "-1ms"}`, "cache_staleness -1ms: want >= 0"},
		{`{"procs": 1}`, ""},
		{`{"procs": -1}`, "procs -1: want 0 (the Go runtime's default) to 1024"},
		{`{"procs": 1025}`, "procs 1025"},
		{`{"linger": "soon"}`, "duration"},
		{`{"linger": 5}`, "want a string"},
		{`{"lingr": "1ms"}`, "unknown field"},
		{`{} {}`, "data after the configuration object"},
		{`{"tenants": [{"name": "a"}, {"name": "a"}]}`, "duplicate name"},
		{`{"tenants": [{"name": "a", "priority": 2}]}`, "priority must be 0 or 1"},
	} {
		t.Run(tc.json, func(t *testing.T) {
			err := buildFromJSON(t, []byte(tc.json))
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.err)
		})
	}
}

// buildFromJSON decodes a configuration, applies the defaults and checks,
// and builds (then closes) a gateway on the embedded backend.
func buildFromJSON(t *testing.T, data []byte) error {
	c, err := decodeConfig(data)
	if err != nil {
		return err
	}
	if c, err = c.withDefaults(); err != nil {
		return err
	}
	b, err := newMemkvBackend(c.Backend.Shards)
	if err != nil {
		return err
	}
	g, err := newGateway(c, b, nil)
	if err != nil {
		_ = b.Close()
		return err
	}
	require.NoError(t, g.Close())
	return nil
}

// FuzzConfig feeds arbitrary bytes to the configuration's decoding, defaults
// and checks: no panic, and a configuration they accept has every limit and
// the embedded backend's shard count in range.
func FuzzConfig(f *testing.F) {
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"backend": {"kind": "redis", "redis": ["127.0.0.1:1"], "replicas": [["127.0.0.1:2"]]}}`))
	f.Add([]byte(`{"tenants": [{"name": "a", "commands": ["get"], "key_prefixes": ["a:"], "quota_rate": 5}], "limits": {"idle_timeout": "1s"}}`))
	f.Add([]byte(`{"hot_linger": "1ms", "cache_capacity": 5, "otel": "stdout", "otel_sample": 0.5}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := decodeConfig(data)
		if err != nil {
			return
		}
		c, err = c.withDefaults()
		if err != nil {
			require.NotEmpty(t, err.Error())
			return
		}
		if c.Backend.Kind == "memkv" {
			require.True(t, c.Backend.Shards >= 1 && c.Backend.Shards <= maxMemkvShards)
		}
		l := c.Limits
		require.Positive(t, min(l.MaxConns, l.MaxArgs, l.MaxRequestBytes, l.MaxPipeline, l.MaxTxCommands))
		require.GreaterOrEqual(t, min(l.IdleTimeout, l.WriteTimeout), Duration(0))
		require.True(t, c.TargetCPU > 0 && c.TargetCPU <= 1)
		require.NotEmpty(t, c.Tenants)
	})
}

// TestSetProcs: the procs setting changes the process's GOMAXPROCS, and 0
// or a value start refuses leaves it as it was.
func TestSetProcs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	before := runtime.GOMAXPROCS(0)
	for _, tc := range []struct{ n, want int }{
		{0, before}, {-1, before}, {maxProcs + 1, before}, {1, 1}, {0, 1}, {2, 2},
	} {
		require.Equal(t, tc.want, setProcs(tc.n), "procs %d", tc.n)
	}
}
