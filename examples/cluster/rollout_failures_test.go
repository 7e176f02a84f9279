package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// TestRolloutCountsFailuresBetweenWindows: the rollout scenario counted
// failed requests only inside its measurement windows, each opened once every
// client had the new routes, so a request that failed while the clients moved
// to them (the moment a route change is most likely to fail one) or during the
// restore passed unnoticed. Here each client records one failed request as it
// takes each new publication, before it has the routes: it must fail the
// scenario.
func TestRolloutCountsFailuresBetweenWindows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		spec := Spec{Regions: []string{"eu"}, Tenants: 1, Follow: 10 * time.Millisecond, Cadence: 10 * time.Millisecond}.withDefaults()
		p, err := controlplane.New(controlplane.Config{
			Regions:  []controlplane.Region{{Name: "eu"}},
			Gateways: []controlplane.Gateway{{ID: "eu-1", Region: "eu", RESP: "127.0.0.1:1", HTTP: "127.0.0.1:2", Cores: 1}},
			Direct:   []string{"127.0.0.1:3"},
		})
		require.NoError(t, err)
		c := &Cluster{Spec: spec, Tenants: []string{"t00"}, Plane: p}
		c.Load, err = NewLoad(c.loadSpec())
		require.NoError(t, err)
		defer func() { require.NoError(t, c.Load.Close()) }()

		// The clients' follower: each new publication costs a failed request
		// before the client has it.
		done := make(chan struct{})
		go func() {
			defer close(done)
			var seen uint64
			for sleepCtx(ctx, spec.Follow) {
				rt, v := p.Routes()
				if v == seen {
					continue
				}
				seen = v
				for _, s := range c.Load.streams {
					s.record(errors.New("connection refused"))
					_ = s.c.SetRoutes(rt)
				}
			}
		}()
		defer func() { cancel(); <-done }()

		r := &Report{Name: "rollout"}
		require.NoError(t, rolloutRamp(ctx, c, r))
		var counted bool
		for _, f := range r.Failures {
			counted = counted || strings.Contains(f, "connection refused")
		}
		assert.True(t, counted, "the failed requests between the windows fail the scenario; failures: %q", r.Failures)
	})
}
