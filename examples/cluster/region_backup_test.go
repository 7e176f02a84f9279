package main

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// TestRegionOverloadBackupMustNotSpill: region-overload's doc says the
// backup never spills itself (a backup that spills cannot receive), but the
// scenario only reported the ticks it spilled as a figure and passed the
// same. Here the backup's gateways run at 120% from 5 s in (after the
// settle the scenario starts with), so it spills: the scenario must report it.
func TestRegionOverloadBackupMustNotSpill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		backup := Spec{}.withDefaults().Regions[1]
		r := runRegionOverload(t, func(c *Cluster, g controlplane.Gateway, up float64) controlplane.Sample {
			util := 0.4
			if g.Region == backup && up > 6 { // once the plane settled
				util = 1.2
			}
			return controlplane.Sample{CPUSeconds: util * c.Spec.Cores * up, UptimeSeconds: up, GOMAXPROCS: 1}
		})
		var reported bool
		for _, f := range r.Failures {
			reported = reported || strings.HasPrefix(f, "the backup "+backup+" never spills itself")
		}
		assert.True(t, reported, "the backup spilled; failures: %q", r.Failures)
	})
}
