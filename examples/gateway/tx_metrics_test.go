package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	dto "github.com/prometheus/client_model/go"
)

// series returns the metric of family name whose labels include want, or
// nil when that series is not bound yet.
func series(t *testing.T, g *Gateway, name string, want map[string]string) *dto.Metric {
	t.Helper()
	mfs, err := g.metrics.reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metrics:
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if labels[k] != v {
					continue metrics
				}
			}
			return m
		}
	}
	return nil
}

// latencyCount is the number of observations of gateway_request_seconds for
// tenant and command.
func latencyCount(t *testing.T, g *Gateway, tenant, cmd string) uint64 {
	t.Helper()
	return series(t, g, "gateway_request_seconds", map[string]string{"tenant": tenant, "command": cmd}).GetHistogram().GetSampleCount()
}

// requestCount is the value of gateway_requests_total for tenant, command
// and outcome (0 for a series not yet bound).
func requestCount(t *testing.T, g *Gateway, tenant, cmd, outcome string) float64 {
	t.Helper()
	return series(t, g, "gateway_requests_total", map[string]string{"tenant": tenant, "command": cmd, "outcome": outcome}).GetCounter().GetValue()
}

// TestExecCommandsObserved: the data commands EXEC runs count in the
// tenant's requests, gateway_requests_total and gateway_request_seconds as
// the same commands outside a transaction do, each under its own name;
// those of a transaction that does not commit (a watched key changed)
// count with outcome error.
func TestExecCommandsObserved(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil)
	conn := c.Conn() // one connection, whose set-up commands are behind
	defer conn.Close()
	require.NoError(t, conn.Ping(ctx).Err())
	ten := g.tenants["default"]
	getOK := func() float64 { return requestCount(t, g, "default", "GET", "ok") }
	setOK := func() float64 { return requestCount(t, g, "default", "SET", "ok") }
	getErr := func() float64 { return requestCount(t, g, "default", "GET", "error") }
	reqs, commands := ten.requests.Load(), g.n.commands.Load()
	gets, sets := getOK(), setOK()
	getLat, setLat := latencyCount(t, g, "default", "GET"), latencyCount(t, g, "default", "SET")

	_, err := conn.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "{x}a", "1", 0)
		p.Get(ctx, "{x}a")
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, uint64(2), ten.requests.Load()-reqs, "the tenant's requests")
	assert.Equal(t, 1.0, getOK()-gets, "GET in EXEC, gateway_requests_total")
	assert.Equal(t, 1.0, setOK()-sets, "SET in EXEC, gateway_requests_total")
	assert.Equal(t, uint64(1), latencyCount(t, g, "default", "GET")-getLat, "GET in EXEC, gateway_request_seconds")
	assert.Equal(t, uint64(1), latencyCount(t, g, "default", "SET")-setLat, "SET in EXEC, gateway_request_seconds")
	// MULTI and EXEC (connection commands) and the two data commands.
	assert.Equal(t, uint64(4), g.n.commands.Load()-commands, "total_commands_processed")

	// A transaction that does not commit: its GET counts as an error.
	other := client(t, in, nil)
	errs := getErr()
	err = c.Watch(ctx, func(tx *redis.Tx) error {
		require.NoError(t, other.Set(ctx, "{x}a", "2", 0).Err())
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Get(ctx, "{x}a")
			return nil
		})
		return err
	}, "{x}a")
	require.ErrorIs(t, err, redis.TxFailedErr)
	assert.Equal(t, 1.0, getErr()-errs, "GET of an EXEC that did not commit")
}

// TestExecCrossShardObserved: the data commands of an EXEC refused with
// CROSSSLOT count as errors in the tenant's requests, the errors,
// gateway_requests_total and gateway_request_seconds, as those of an EXEC
// refused at admission do. They were answered (EXEC's error is their reply)
// but counted nowhere.
func TestExecCrossShardObserved(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	g := in.gw
	ctx := context.Background()
	k1, k2 := "x0", ""
	for i := 1; k2 == ""; i++ {
		if k := fmt.Sprint("x", i); g.shard(k) != g.shard(k1) {
			k2 = k
		}
	}
	conn := client(t, in, nil).Conn()
	defer conn.Close()
	require.NoError(t, conn.Ping(ctx).Err())
	ten := g.tenants["default"]
	getErr := func() float64 { return requestCount(t, g, "default", "GET", "error") }
	setErr := func() float64 { return requestCount(t, g, "default", "SET", "error") }
	reqs, commands, errs := ten.requests.Load(), g.n.commands.Load(), g.n.errors.Load()
	all := g.n.allCommands()
	gets, sets := getErr(), setErr()
	getLat, setLat := latencyCount(t, g, "default", "GET"), latencyCount(t, g, "default", "SET")

	_, err := conn.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Get(ctx, k1)
		p.Set(ctx, k2, "1", 0)
		return nil
	})
	require.ErrorContains(t, err, "CROSSSLOT")
	assert.Equal(t, uint64(2), ten.requests.Load()-reqs, "the tenant's requests")
	assert.Equal(t, uint64(2), g.n.errors.Load()-errs, "errors")
	assert.Equal(t, 1.0, getErr()-gets, "GET, gateway_requests_total")
	assert.Equal(t, 1.0, setErr()-sets, "SET, gateway_requests_total")
	assert.Equal(t, uint64(1), latencyCount(t, g, "default", "GET")-getLat, "GET, gateway_request_seconds")
	assert.Equal(t, uint64(1), latencyCount(t, g, "default", "SET")-setLat, "SET, gateway_request_seconds")
	// MULTI and EXEC (connection commands) and the two data commands in
	// /control's commands, with their errors; MULTI and EXEC only in
	// total_commands_processed, as Redis counts a transaction it discards.
	assert.Equal(t, uint64(4), g.n.allCommands()-all, "/control's commands")
	assert.Equal(t, uint64(2), g.n.commands.Load()-commands, "total_commands_processed")
}
