package main

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCmdCollectorSumDoesNotWrap: gateway_request_seconds_sum keeps growing
// past 292 years of summed latency, as the vectors' float sum did. It was
// kept in int64 nanoseconds, which a series reaches in 107 days of a
// thousand of its commands in flight on average (the sum grows by the
// commands in flight every second): the sum then went negative, which
// Prometheus reads as a counter reset. Three observations of half that range
// stand for the uptime.
func TestCmdCollectorSumDoesNotWrap(t *testing.T) {
	c, reg, tenants := newTestCollector(t, "a")
	d := time.Duration(math.MaxInt64 / 2)
	for range 3 {
		c.observe(tenants["a"], commands["GET"], true, d)
	}
	got := gatherCmds(t, reg)["a/GET"]
	require.NotNil(t, got)
	assert.Equal(t, uint64(3), got.count)
	assert.InEpsilon(t, 3*d.Seconds(), got.sum, 1e-9, "sum %v s", got.sum)
}
