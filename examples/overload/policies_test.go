package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPartitionShareRoundsUp: concurrency-limits' AbstractPartitionedLimiter
// sets a partition's limit to max(1, ceil(limit x percent)), so that the
// partitions together never hold fewer than the whole limit. Truncating
// gave 22 + 9 = 31 of 32 slots to the 70/30 partitions.
func TestPartitionShareRoundsUp(t *testing.T) {
	p := &partitionPolicy{pct: [2]float64{0.7, 0.3}}
	p.reset(defaultScenario(0, 1), func(*request) {})
	assert.Equal(t, 23, p.share(0))
	assert.Equal(t, 10, p.share(1))
	assert.GreaterOrEqual(t, p.share(0)+p.share(1), p.slots)

	small := &partitionPolicy{pct: [2]float64{0.99, 0.01}, slots: 32}
	assert.Equal(t, 1, small.share(1), "a partition's limit is at least 1")
}
