package main

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
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
		var cfg controlplane.Config
		cfg.Regions = []controlplane.Region{{Name: "eu"}}
		for _, id := range []string{"eu-1", "eu-2"} { // exited: Hosts reads none of them
			p := &proc{name: id, done: make(chan struct{})}
			close(p.done)
			g := &gatewayProc{proc: p, ID: id, Region: "eu", RESP: id + ":1", HTTP: id + ":2"}
			c.Gateways = append(c.Gateways, g)
			cfg.Gateways = append(cfg.Gateways, controlplane.Gateway{ID: id, Region: "eu", RESP: g.RESP, HTTP: g.HTTP, Cores: spec.Cores})
		}
		var err error
		c.Plane, err = controlplane.New(cfg) // never run: no tick
		require.NoError(t, err)
		c.Load, err = NewLoad(c.loadSpec())
		require.NoError(t, err)
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
