package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
	"github.com/tierkit/tierkit/rollout"
)

// TestKilledGatewayRetryBudget: killed-gateway checked the retries of every
// client, both regions', against its budget of 2 per client of the killed
// gateway's region, so retries of the other region's clients (none of which
// sends to the victim unless its region spills) used up the region's budget
// and could fail a correct run. Here only us clients retry (their own hosts
// refuse connections), 3 of them with a budget of 2 for eu's one client: the
// budget must hold. The same retries by eu's client exceed it.
func TestKilledGatewayRetryBudget(t *testing.T) {
	for _, region := range []string{"us", "eu"} {
		t.Run(region, func(t *testing.T) {
			// 3 requests half a second after the kill, in one ejection.
			at := []time.Duration{500 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond}
			killedRetries(t, region, 0, at, region == "eu")
		})
	}
}

// killedRetries runs killed-gateway on gateways that never answer, with one
// tenant whose client of region sends a request (refused, retried on the next
// host, refused) at each offset of at from the kill, and checks whether the
// scenario reports its retry budget exceeded. The plane's polls of the victim
// succeed until downAfter from the kill, and fail from then on.
func killedRetries(t *testing.T, region string, downAfter time.Duration, at []time.Duration, exceeded bool) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		spec := Spec{Tenants: 1, Gateways: 2, Cadence: 100 * time.Millisecond}.withDefaults()
		c := &Cluster{Spec: spec, Tenants: []string{"t00"}}
		cfg := controlplane.Config{Cadence: spec.Cadence, Direct: []string{"127.0.0.1:1"},
			Rollout: rollout.Config{Rules: []rollout.Rule{{Service: service, Percent: 100}}}}
		for i, r := range spec.Regions {
			cfg.Regions = append(cfg.Regions, controlplane.Region{Name: r, Backups: []string{spec.Regions[1-i]}})
			for j := range spec.Gateways {
				// Never started: the victim counts as dead (kill does
				// nothing), the others as alive. Nothing listens on
				// their RESP ports (free a moment ago); HTTP is not used
				// (but, like RESP, must be each gateway's own).
				port, err := freePort()
				require.NoError(t, err)
				g := &gatewayProc{proc: &proc{done: make(chan struct{})}, ID: fmt.Sprintf("%s-%d", r, j+1), Region: r,
					RESP: fmt.Sprintf("127.0.0.1:%d", port), HTTP: fmt.Sprintf("127.0.0.1:%d", 1+len(c.Gateways))}
				c.Gateways = append(c.Gateways, g)
				cfg.Gateways = append(cfg.Gateways, controlplane.Gateway{ID: g.ID, Region: r, RESP: g.RESP, HTTP: g.HTTP, Cores: spec.Cores})
			}
		}
		close(c.Gateways[0].done)
		start := time.Now()
		cfg.Poller = controlplane.PollerFunc(func(_ context.Context, g controlplane.Gateway) (controlplane.Sample, error) {
			up := time.Since(start).Seconds() + 1
			if g.ID == "eu-1" && time.Since(start) >= time.Second+downAfter { // killed 1 s in
				return controlplane.Sample{}, errors.New("connection refused")
			}
			return controlplane.Sample{CPUSeconds: 0.4 * spec.Cores * up, UptimeSeconds: up, GOMAXPROCS: 1}, nil
		})
		var err error
		c.Plane, err = controlplane.New(cfg)
		require.NoError(t, err)
		c.Load, err = NewLoad(c.loadSpec())
		require.NoError(t, err)
		defer func() { assert.NoError(t, c.Load.Close()) }()
		done := make(chan struct{})
		go func() { defer close(done); _ = c.Plane.Run(ctx) }()
		defer func() { cancel(); <-done }()
		rt, _ := c.Plane.Routes()
		cl := c.Load.byKey["t00/"+region].c
		require.NoError(t, cl.SetRoutes(rt))

		res := make(chan error)
		r := &Report{Name: "killed-gateway"}
		go func() { res <- killedGateway(ctx, c, r) }()
		killed := start.Add(time.Second)
		for k, d := range at {
			time.Sleep(time.Until(killed.Add(d)))
			_, _ = cl.Get(ctx, loadKey("t00", k)) // refused, retried on the next host, refused
		}
		require.NoError(t, <-res)
		require.Equal(t, uint64(len(at)), cl.Stats().Retries, "the client retried")
		var over bool
		for _, f := range r.Failures {
			over = over || strings.HasPrefix(f, "retries within the budget")
		}
		assert.Equal(t, exceeded, over, "retries of the %s client over eu's budget; failures: %q", region, r.Failures)
	})
}
