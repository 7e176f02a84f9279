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
		ctx := t.Context()
		c := rolloutCluster(t, ctx, func(s *stream, _ uint64) bool {
			s.record(errors.New("connection refused"))
			return true
		})
		r := &Report{Name: "rollout"}
		require.NoError(t, rolloutRamp(ctx, c, r))
		var counted bool
		for _, f := range r.Failures {
			counted = counted || strings.Contains(f, "connection refused")
		}
		assert.True(t, counted, "the failed requests between the windows fail the scenario; failures: %q", r.Failures)
	})
}

// TestRolloutRestoreFailureReported: the rollout scenario ignored a restore
// whose routes the clients did not take within 5 s, so it passed and the next
// scenario ran on clients still under the kill switch, although every
// scenario leaves the rollout as it found it. Here the clients stop
// following after the kill switch: the scenario must say its restore failed.
func TestRolloutRestoreFailureReported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		killed := false
		c := rolloutCluster(t, ctx, func(s *stream, _ uint64) bool {
			if rt, ok := s.c.Routes(); ok && rt.Rollout != nil && rt.Rollout.Config().Kill {
				killed = true
			}
			return !killed
		})
		err := rolloutRamp(ctx, c, &Report{Name: "rollout"})
		require.Error(t, err, "the clients never took the restored routes")
		assert.Contains(t, err.Error(), "restore")
	})
}

// rolloutCluster is a cluster of one region, one tenant and one gateway that
// serves no request, for the rollout scenario's bookkeeping: a plane in
// process that is never run, and a load whose streams send nothing. Its
// follower hands every new publication to each client, as Follow does, after
// calling take, unless take returns false. Everything stops at the test's
// cleanup.
func rolloutCluster(t *testing.T, ctx context.Context, take func(s *stream, version uint64) bool) *Cluster {
	ctx, cancel := context.WithCancel(ctx)
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
				if take(s, v) {
					_ = s.c.SetRoutes(rt)
				}
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		assert.NoError(t, c.Load.Close())
	})
	return c
}
