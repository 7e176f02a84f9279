package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The latency histogram reaches past the default request timeout, so a
// command that waits it out is told apart from merely slow ones.
func TestLatencyBucketsCoverTheDefaultTimeout(t *testing.T) {
	cfg, err := Config{}.withDefaults()
	require.NoError(t, err)
	top := latencyBuckets[len(latencyBuckets)-1]
	require.Greater(t, top, time.Duration(cfg.RequestTimeout).Seconds())
	require.InDelta(t, 50e-6, latencyBuckets[0], 1e-12)
}
