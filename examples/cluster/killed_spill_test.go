package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestKilledGatewayTakeoverSpill: a region that loses one of its three
// hosts runs its two survivors hotter, and the plane's failover may spill
// part of the region's keys to the backup region. The spill picks keys by a
// hash independent of their ring owner, so it takes the same share of the
// survivors' own keys as of the victim's, and the survivors' share of the
// region's attempts stays short of 100% by that share. A run on a loaded
// machine failed with the survivors' share rising from 77% to 82% only,
// against the 5.75 points required (its report did not give the spill).
// The windows below give those shares with a spill of a fifth of eu's
// keys: eu's clients' attempts on u:1, a host of the backup region, while
// the plane published a spill of 20% on average since the kill.
func TestKilledGatewayTakeoverSpill(t *testing.T) {
	victim := &gatewayProc{ID: "eu-1", Region: "eu", RESP: "h:1"}
	others := []*gatewayProc{{ID: "eu-2", Region: "eu", RESP: "h:2"}, {ID: "eu-3", Region: "eu", RESP: "h:3"}}
	window := func(requests, eu1, eu2, eu3, us1 uint64) Snapshot {
		return Snapshot{Streams: map[string]Counts{"t00/eu": {OK: requests}},
			Hosts: map[string]map[string]uint64{"eu": {"h:1": eu1, "h:2": eu2, "h:3": eu3, "u:1": us1}}}
	}
	calm := takeoverWindow{window(130, 30, 50, 50, 0), 0}
	since := takeoverWindow{window(390, 12, 160, 160, 78), 0.2}
	r := &Report{}
	fig := checkTakeover(r, calm, since, victim, others)
	assert.True(t, r.OK(), "the survivors took every key of eu-1 that stayed home: %q", r.Failures)
	assert.Equal(t, "eu-2 160 eu-3 160: their share of the attempts of eu's clients kept in eu 98% after the kill (retries included) against 77% before; eu-1 had 23% before; "+
		"the plane sent 20% of eu's keys out of eu after the kill (0% before), and eu's clients 19% of their attempts (0% before)", fig)

	// The same attempts while the plane published no spill: the victim's
	// keys went to another region, not to the survivors.
	r = &Report{}
	checkTakeover(r, calm, takeoverWindow{since.counts, 0}, victim, others)
	assert.False(t, r.OK(), "eu's keys left the region with no spill published")
}
