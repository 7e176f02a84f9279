package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestFailoverRouteClaimsAreChecked: the failover section printed "%d route
// on/off changes (no flapping)" after checking only spill starts and ends.
// A router that kept b1 spilling in one episode but turned its global
// routes on and off run after run printed "30 route on/off changes (no
// flapping)" with exit status 0. Found by a review.
func TestFailoverRouteClaimsAreChecked(t *testing.T) {
	mega := []failover.Route{{From: "b1", To: "b2", Share: 0.07, Mechanism: failover.MechMega}}
	all := append([]failover.Route{
		{From: "b1", To: "a1", Share: 0.01, Mechanism: failover.MechGlobal},
		{From: "b1", To: "a2", Share: 0.01, Mechanism: failover.MechGlobal}}, mega...)
	day := func(tables ...[]failover.Route) map[failover.Route]int {
		flips, on := map[failover.Route]int{}, map[failover.Route]bool{}
		for _, tab := range tables {
			on = tallyRoutes(flips, on, tab)
		}
		return flips
	}
	once := day(nil, mega, mega, all, all, mega, nil, nil)
	require.NoError(t, verify(failoverRouteClaims(once, 6)...))
	err := verify(failoverRouteClaims(once, 8)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "6 route on/off changes in the tables, not 8 counted")

	flapping := day(nil, mega, all, mega, all, mega, all, nil)
	err = verify(failoverRouteClaims(flapping, 14)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no flapping: every route turned on once and off at most once, not b1 -> a1 (global) 6 times, b1 -> a2 (global) 6 times")
}
