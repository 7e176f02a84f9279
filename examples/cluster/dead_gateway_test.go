package main

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// TestDeadGatewayReported: the scenario tests' "gateway died" check skipped
// the first gateway of the first region (eu-1) in every scenario, since
// killed-gateway kills it on purpose: eu-1 is also the gateway hot-gateway
// heats, and a crash of it in rollout or noisy-tenant (its requests retried
// on the next host, the plane dropping it) passed unnoticed. Only a gateway
// a scenario killed is left out now.
func TestDeadGatewayReported(t *testing.T) {
	gw := func(id string, alive bool) *gatewayProc {
		p := &proc{name: id, done: make(chan struct{})}
		if !alive {
			close(p.done)
		}
		return &gatewayProc{proc: p, ID: id, Region: "eu"}
	}
	c := &Cluster{Gateways: []*gatewayProc{gw("eu-1", false), gw("eu-2", true), gw("eu-3", false)}}
	ids := func() []string {
		var out []string
		for _, g := range c.Dead() {
			out = append(out, g.ID)
		}
		return out
	}
	assert.Equal(t, []string{"eu-1", "eu-3"}, ids(), "eu-1 crashed: no scenario killed it")
	c.Gateways[0].killed = true
	assert.Equal(t, []string{"eu-3"}, ids(), "killed-gateway's victim is expected to be dead")
}

// TestRunReportsDeadGateway: a gateway that dies during a scenario fails
// it. Only the tests checked it, after Run: `go run ./cluster -scenario all`
// (or a single scenario) passed every scenario during which a gateway
// crashed. Run checks it now, for the gateways that died during the
// scenario: one dead before was reported by the scenario it died in, and one
// the scenario killed on purpose is none.
func TestRunReportsDeadGateway(t *testing.T) {
	plane, err := controlplane.New(controlplane.Config{Regions: []controlplane.Region{{Name: "eu"}}})
	require.NoError(t, err)
	gw := func(id string) *gatewayProc {
		return &gatewayProc{proc: &proc{name: id, done: make(chan struct{})}, ID: id, Region: "eu"}
	}
	early, crash, victim, fine := gw("eu-1"), gw("eu-2"), gw("eu-3"), gw("eu-4")
	close(early.done) // died before the scenario
	crash.keep("panic: the crash's last words")
	c := &Cluster{Spec: DefaultSpec(), Plane: plane, Gateways: []*gatewayProc{early, crash, victim, fine}}
	saved := scenarios
	t.Cleanup(func() { scenarios = saved })
	scenarios = append(slices.Clone(scenarios), scenario{name: "crash", run: func(context.Context, *Cluster, *Report) error {
		close(crash.done)
		victim.killed = true
		close(victim.done)
		return nil
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := Run(ctx, c, "crash")
	require.NoError(t, err)
	require.Len(t, r.Failures, 1, "%q", r.Failures)
	assert.Contains(t, r.Failures[0], "eu-2")
	assert.Contains(t, r.Failures[0], "the crash's last words")
}
