package main

import (
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// TestRegionOverloadReportsMissedTicks: region-overload records the plane's
// latest tick twice a cadence and took two recorded ticks for consecutive
// plane ticks. A poll that answers after the cadence (the cluster allows a
// poll a whole cadence) makes the next tick follow at once, and the tick
// between is never recorded. Here one poll of the ramp (halfway up) takes
// 1.1 cadences: the scenario must report the tick it missed as a figure, and
// not fail for it (a late poll is no flap; the counters see every tick).
func TestRegionOverloadReportsMissedTicks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var once sync.Once
		region := Spec{}.withDefaults().Regions[0]
		r := runRegionOverload(t, func(c *Cluster, g controlplane.Gateway, up float64) controlplane.Sample {
			if halfwayUp(c, region) && g.Region == region {
				once.Do(func() { time.Sleep(c.Spec.Cadence * 11 / 10) })
			}
			return controlplane.Sample{CPUSeconds: 0.4 * c.Spec.Cores * up, UptimeSeconds: up, GOMAXPROCS: 1}
		})
		var missed string
		for _, f := range r.Figures {
			if strings.HasPrefix(f, "the record missed ") {
				missed = f
			}
		}
		assert.True(t, strings.HasPrefix(missed, "the record missed 1 of "), "the missed tick is reported; figures: %q", r.Figures)
		for _, f := range r.Failures {
			assert.NotContains(t, f, "missed", "a missed tick is a figure, not a failure")
		}
	})
}

// halfwayUp reports whether region's rate is past half the ramp's (from the
// base to twice the spec's rate, at least).
func halfwayUp(c *Cluster, region string) bool {
	return time.Duration(c.Load.byKey["t00/"+region].interval.Load()) < time.Duration(float64(time.Second)/(1.5*c.Spec.Rate))
}
