package batcher

import (
	"math"
	"testing"
	"time"
)

// TestFlushLatencySumSaturates: FlushLatencySum, a monotonic sum of
// nanoseconds, saturates at the largest Duration rather than wrap negative
// (MeanFlushLatency with it). 2^63 ns is about 292 years of flush time in
// all, which DefaultMaxInFlight (256) flushes always in flight add up in
// about 14 months. Here two flushes of 200 years each, given explicitly.
func TestFlushLatencySumSaturates(t *testing.T) {
	var c counters
	long := 200 * 365 * 24 * time.Hour
	c.recordLatency(long)
	c.recordLatency(long)
	if got := c.latencySum.Load(); got != math.MaxInt64 {
		t.Fatalf("after two flushes of 200 years: latency sum %v, want saturated at %v", time.Duration(got), time.Duration(math.MaxInt64))
	}
	if got := time.Duration(c.latencyMax.Load()); got != long {
		t.Fatalf("latency max %v, want %v", got, long)
	}
	c.recordLatency(time.Second) // stays saturated
	if got := c.latencySum.Load(); got != math.MaxInt64 {
		t.Fatalf("a flush after saturation: latency sum %v, want %v", time.Duration(got), time.Duration(math.MaxInt64))
	}
}
