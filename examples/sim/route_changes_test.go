package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRouteChangesCountPairsOnce: a region can reach one receiver by two
// mechanisms in the same table (a2 -> a3 by its ring and by mega-region once
// a1 is full), and the tracker counts routes by their ends. Such a pair
// turning on counted once per mechanism but turning off once, so routeChg
// read high (seed 3: 3.04 per hour for 3.00).
func TestRouteChangesCountPairsOnce(t *testing.T) {
	ft := newFailTracker("x", 6)
	ft.routed([]route{{from: 1, to: 0, share: 0.1}, {from: 1, to: 2, share: 0.05}, {from: 1, to: 2, share: 0.02}})
	assert.Equal(t, 2, ft.changes, "a2 -> a1 and a2 -> a3 turned on")
	ft.routed([]route{{from: 1, to: 2, share: 0.05}, {from: 1, to: 2, share: 0.03}})
	assert.Equal(t, 3, ft.changes, "a2 -> a1 turned off; a2 -> a3 stayed on")
	ft.routed(nil)
	assert.Equal(t, 4, ft.changes, "a2 -> a3 turned off")
}
