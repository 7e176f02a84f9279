package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/internal/leak"
)

// gatewayBin is the reference gateway, built once by TestMain.
var gatewayBin string

func TestMain(m *testing.M) {
	redis.SetLogger(quietRedis{})
	// Without redis-server the run fails, as the gateway's tests do: an
	// exit 0 here showed the package "ok" with no test run.
	if _, err := exec.LookPath("redis-server"); err != nil {
		fmt.Fprintln(os.Stderr, ErrNoRedis)
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "cluster-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	gatewayBin, err = buildGateway(context.Background(), dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// startCluster starts the default cluster for one test and stops every
// process at cleanup, whether the test passed or not. Its context ends
// shortly before the test binary's deadline (see clusterDeadline).
func startCluster(t *testing.T) (*Cluster, context.Context) {
	t.Helper()
	deadline, ok := t.Deadline()
	ctx, cancel := context.WithDeadline(context.Background(), clusterDeadline(time.Now(), deadline, ok))
	t.Cleanup(cancel)
	spec := DefaultSpec()
	spec.GatewayBin = gatewayBin
	spec.Logf = t.Logf
	c, err := Start(ctx, spec)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c, ctx
}

// cleanupMargin is the time a cluster test leaves before the test binary's
// deadline to stop its processes and report: past the deadline the binary
// panics, with neither.
const cleanupMargin = 15 * time.Second

// clusterDeadline is when a cluster test's context ends, given the test
// binary's deadline (ok false without one: go test -timeout 0). A fixed 60 s
// was tight: a cluster's start may wait over a minute in all (the shards, the
// gateways, the load's warm-up, the burn's calibration, the plane settling),
// and a scenario up to 30 s for the plane to settle before its own fixed
// waits (about 26 s in region-overload), on a loaded machine. The tests run one
// after the other, so each may use the time left, short of the margin (half
// of what is left when that is less than twice the margin); without a
// deadline, the default one of go test, 10 minutes.
func clusterDeadline(now, deadline time.Time, ok bool) time.Time {
	if !ok {
		return now.Add(10 * time.Minute)
	}
	return deadline.Add(-min(cleanupMargin, deadline.Sub(now)/2))
}

// runScenario runs one scenario on a fresh cluster and fails the test on any
// failed check (a gateway that died among them); the report (with the
// measured figures) is logged.
func runScenario(t *testing.T, name string) {
	leak.Check(t)
	c, ctx := startCluster(t)
	r, err := Run(ctx, c, name)
	if r != nil {
		t.Log("\n" + r.String())
	}
	require.NoError(t, err)
	for _, f := range r.Failures {
		t.Error(f)
	}
}

func TestHotGateway(t *testing.T)     { runScenario(t, "hot-gateway") }
func TestRegionOverload(t *testing.T) { runScenario(t, "region-overload") }
func TestNoisyTenant(t *testing.T)    { runScenario(t, "noisy-tenant") }
func TestRollout(t *testing.T)        { runScenario(t, "rollout") }
func TestKilledGateway(t *testing.T)  { runScenario(t, "killed-gateway") }

// Close stops every process of the cluster, including after a failed start.
func TestCloseStopsEverything(t *testing.T) {
	leak.Check(t)
	c, _ := startCluster(t)
	procs := []*proc{}
	for _, g := range c.Gateways {
		procs = append(procs, g.proc)
	}
	for _, r := range c.redis {
		procs = append(procs, r.proc)
	}
	c.Close()
	c.Close() // idempotent
	for _, p := range procs {
		require.False(t, p.alive(), "%s still runs after Close", p.name)
	}
}
