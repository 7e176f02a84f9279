package main

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHotEvenedOutNeedsTicks: hot-gateway's "the load evens out" and "the
// hot host keeps a lowered share" read the plane's ticks of a 3 s window;
// with no tick in it (a plane that stopped ticking) the hot host's ratio to
// its peers read 0 and its share 0, and both checks passed on nothing
// measured. Here the plane never ticks: the scenario must fail them.
func TestHotEvenedOutNeedsTicks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		spec := Spec{Tenants: 1}.withDefaults()
		c := &Cluster{Spec: spec, Tenants: []string{"t00"}}
		withExitedGateways(t, c) // exited: Hosts reads none of them; the plane never ticks
		defer func() { assert.NoError(t, c.Load.Close()) }()

		h := &hotRun{region: "eu", hot: c.Gateways[0],
			base: hostWindow{cpu: map[string]float64{"eu-1": 0.4, "eu-2": 0.4}, share: map[string]float64{"eu-1": 0.5, "eu-2": 0.5}, ticks: 5}}
		r := &Report{Name: "hot-gateway"}
		start := time.Now()
		require.NoError(t, h.checkEvenedOut(t.Context(), c, r))
		require.GreaterOrEqual(t, time.Since(start), 5*time.Second, "the windows passed")
		for _, want := range []string{"the plane measured eu's hosts after the weight was lowered (got 0 ticks)",
			"the load evens out: the hot host's CPU is within 1.35x its peers' mean (got 0.00)",
			"the hot host keeps a lowered share (0.00 against 0.50 before)"} {
			assert.Contains(t, r.Failures, want)
		}
	})
}
