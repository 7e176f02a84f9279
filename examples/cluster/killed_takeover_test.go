package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestKilledGatewayTakeover: killed-gateway's check that "the other eu hosts
// get none of its load" fails the scenario tested only that each other host
// had attempts after the kill, which it has from its own keys whatever
// became of the victim's: a region whose survivors took none of the victim's
// load passed. The survivors' rate after the kill is now compared with
// their rate before it.
func TestKilledGatewayTakeover(t *testing.T) {
	victim := &gatewayProc{ID: "eu-1", RESP: "h:1"}
	others := []*gatewayProc{{ID: "eu-2", RESP: "h:2"}, {ID: "eu-3", RESP: "h:3"}}
	window := func(eu1, eu2, eu3 uint64) Snapshot {
		return Snapshot{Hosts: map[string]map[string]uint64{"eu": {"h:1": eu1, "h:2": eu2, "h:3": eu3}}}
	}
	calm := window(40, 40, 40) // 1 s before the kill: 40/s each

	// The victim's 40/s moved to the others: 60/s each over 3 s.
	r := &Report{}
	fig := checkTakeover(r, calm, window(5, 180, 180), 1, 3, victim, others)
	assert.True(t, r.OK(), r.Failures)
	assert.Equal(t, "eu-2 180 eu-3 180: 120/s on them after the kill against 80/s before; eu-1 served 40/s before", fig)

	// None of it moved (it went elsewhere, or nowhere): 40/s each, as before.
	r = &Report{}
	checkTakeover(r, calm, window(5, 120, 120), 1, 3, victim, others)
	assert.False(t, r.OK(), "the survivors kept their own rate only: they took none of the victim's load")

	// A host without attempts still fails.
	r = &Report{}
	checkTakeover(r, calm, window(5, 360, 0), 1, 3, victim, others)
	assert.False(t, r.OK(), "eu-3 took nothing")
}
