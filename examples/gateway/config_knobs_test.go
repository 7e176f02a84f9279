package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Every setting that is also a control knob must be within the knob's
// bounds, since the knob is registered with it at start. The configuration
// check let values outside them pass (request_timeout 2m, linger 100ms,
// max_batch 5000, ...), and the gateway then failed to start on the knob's
// registration, with an error naming the knob rather than the field. A
// value the check accepts must start; one it refuses must name its field.
func TestConfigWithinKnobBounds(t *testing.T) {
	for _, tc := range []struct{ json, field string }{
		{`{"request_timeout": "2m"}`, "request_timeout"},
		{`{"request_timeout": "500us"}`, "request_timeout"},
		{`{"linger": "100ms"}`, "linger"},
		{`{"linger": "500ns"}`, "linger"},
		{`{"max_batch": 5000}`, "max_batch"},
		{`{"max_in_flight": 2000000}`, "max_in_flight"},
		{`{"target_cpu": 0.01}`, "target_cpu"},
		{`{"max_limit": 2000000}`, "max_limit"},
		{`{"max_queue": 2000000}`, "max_queue"},
		{`{"queue_deadline": "20s"}`, "queue_deadline"},
		{`{"queue_deadline": "500us"}`, "queue_deadline"},
		{`{"tenants": [{"name": "a", "quota_rate": 2e9}]}`, "quota_rate"},
		{`{"tenants": [{"name": "a", "quota_burst": 2000000000}]}`, "quota_burst"},
		{`{"cache_capacity": 100000000}`, "cache_capacity"},
		{`{"cache_capacity": 10, "cache_staleness": "2h"}`, "cache_staleness"},
		{`{"cache_capacity": 10, "cache_staleness": "500us"}`, "cache_staleness"},
	} {
		t.Run(tc.json, func(t *testing.T) {
			c, err := decodeConfig([]byte(tc.json))
			require.NoError(t, err)
			if _, err := c.withDefaults(); err != nil {
				require.ErrorContains(t, err, "gateway: ")
				require.ErrorContains(t, err, tc.field)
				return
			}
			c.Addr, c.HTTPAddr = "127.0.0.1:0", "-"
			in, err := start(c, nil)
			require.NoError(t, err, "the configuration check accepted it")
			require.NoError(t, in.Shutdown(t.Context()))
		})
	}
}
