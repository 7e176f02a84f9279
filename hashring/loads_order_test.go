package hashring

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLoadsReleaseOvertakingAcquireStaysAtZero: a Release that runs after
// Acquire has counted the node but before Acquire returns balances it without
// the gauges going below 0. Acquire raised the total after the node's counter,
// so a Release that slipped in between made Stats().InFlight and Total() read -1
// (and Releases exceed Acquires) until the Acquire caught up.
func TestLoadsReleaseOvertakingAcquireStaysAtZero(t *testing.T) {
	var l Loads
	var mid LoadStats
	var midTotal int64
	testHookAcquired = func(id string) {
		l.Release(id)
		mid, midTotal = l.Stats(), l.Total()
	}
	t.Cleanup(func() { testHookAcquired = nil })

	l.Acquire("a")

	assert.Equal(t, LoadStats{InFlight: 0, Acquires: 1, Releases: 1, Nodes: 1}, mid)
	assert.Zero(t, midTotal)
	assert.Equal(t, LoadStats{InFlight: 0, Acquires: 1, Releases: 1, Nodes: 1}, l.Stats())
}
