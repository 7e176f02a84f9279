package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestMarkerCutOnMonotonicClock: a checkpoint marker's cut comes back with
// the monotonic clock reading it was taken with, so the cache measures the
// staleness bound from it whatever the wall clock does. Before, the cut
// travelled as unix nanoseconds and came back as wall-clock time only: the
// cache then compared it to its monotonic base on the wall clock, and a wall
// clock set back by more than the bound made every checkpoint stale on
// arrival.
func TestMarkerCutOnMonotonicClock(t *testing.T) {
	cut := time.Now()
	got := markerCut([]byte(markerPayload(cut)))
	assert.True(t, got.Equal(cut), "%v != %v", got, cut)
	assert.Contains(t, got.String(), " m=", "a monotonic clock reading")
	assert.Zero(t, markerCut([]byte("x")), "unreadable: no cut")
}
