package main

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/failover"
)

// TestRingRunsCountTheDay: the knob line read "over 48 uncapped runs (...; 27
// runs capped by headroom)" on seed 1, but both were counts of every 4th
// minute only, the minutes on which the Table.Pick scan runs: the day had
// 299 minutes with a ring spill from a2, 107 of them capped. The counts are
// of every minute; only the client scan is sampled.
func TestRingRunsCountTheDay(t *testing.T) {
	p := defaultFail(24 * 60)
	var uncapped, capped int
	tr := newTierkitRouter(failConfig("", 0))
	simulate(p, newWorld(p, 1), tr, func(int) {
		var s1, s3 float64
		for _, rt := range tr.last.Out("a2") {
			if rt.Mechanism != failover.MechRing {
				continue
			}
			if rt.To == "a1" {
				s1 += rt.Share
			} else {
				s3 += rt.Share
			}
		}
		switch {
		case s1+s3 == 0:
		case math.Abs(s1/(s1+s3)-0.7) > 1e-9:
			capped++
		default:
			uncapped++
		}
	})
	k := runKnob(p, 1, 60)
	assert.Equal(t, capped, k.RingCapped, "minutes a ring backup was capped")
	assert.Equal(t, uncapped, k.RingRuns, "minutes of an uncapped ring spill")
}
