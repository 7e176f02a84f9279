package main

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
	"github.com/tierkit/tierkit/shed"
)

// bucket returns the shed stats of tenant's bucket at priority prio (zero
// if shed keeps none).
func bucket(g *Gateway, tenant string, prio int) shed.BucketStats {
	for _, b := range g.shedder.Tenant(tenant) {
		if b.Priority == prio {
			return b
		}
	}
	return shed.BucketStats{}
}

// With the tenant's admission saturated, its high-priority command
// (command_priorities) is admitted before its low-priority one queued
// earlier: shed orders a tenant's priorities within its share, which one
// priority per tenant never used. The GET's backend call is held, so that
// the one unit of capacity freed stays taken while the test looks.
func TestCommandPriorityHighAdmittedFirst(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", MinLimit: 8, MaxLimit: 8, QueueDeadline: Duration(10 * time.Second),
		Tenants: []TenantConfig{{Name: "default", CommandPriorities: map[string]int{"get": 1}}}})
	g, ctx := in.gw, context.Background()
	hb := &holdingBackend{Backend: g.backend, holds: map[held]chan struct{}{}}
	g.backend = hb // before any traffic, as registerChaos does
	getHeld := hb.hold(opGet, "b")
	var unhold sync.Once
	t.Cleanup(func() { unhold.Do(func() { close(getHeld) }) }) // on a failure too: before the shutdown
	low, high := client(t, in, nil), client(t, in, nil)
	require.NoError(t, low.Ping(ctx).Err())
	require.NoError(t, high.Ping(ctx).Err())
	rest, err := g.shedder.Acquire(ctx, "other", 0, 7)
	require.NoError(t, err)
	defer rest()
	one, err := g.shedder.Acquire(ctx, "other", 0, 1)
	require.NoError(t, err)

	setDone, getDone := make(chan error, 1), make(chan error, 1)
	go func() { setDone <- low.Set(ctx, "a", "1", 0).Err() }()
	queued := func() int { return bucket(g, "default", 0).Queued + bucket(g, "default", 1).Queued }
	eventuallyWithin(t, 5*time.Second, "the SET queued", func() bool { return queued() == 1 })
	go func() { getDone <- high.Get(ctx, "b").Err() }()
	eventuallyWithin(t, 5*time.Second, "the GET queued", func() bool { return queued() == 2 })

	one() // room for one of them
	admitted := func() int64 { return bucket(g, "default", 0).Admitted + bucket(g, "default", 1).Admitted }
	eventuallyWithin(t, 5*time.Second, "one admitted", func() bool { return admitted() >= 1 })
	require.Equal(t, int64(1), bucket(g, "default", 1).Admitted, "the GET, at priority 1, was admitted")
	require.Equal(t, 1, bucket(g, "default", 0).Queued, "the SET queued before it still waits")
	unhold.Do(func() { close(getHeld) })
	rest()
	for _, ch := range []chan error{getDone, setDone} {
		select {
		case err := <-ch:
			if err != nil {
				require.ErrorIs(t, err, redis.Nil)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a command was not answered")
		}
	}
}

// Each path that asks shed for admission does so at the command's priority:
// a single command, a KVSCAN, a WATCH's reads in a transaction, and an EXEC
// at the highest of its commands' (a high-priority command does not wait
// behind a low-priority one queued with it).
func TestCommandPriorityReachesShed(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{{Name: "default", Priority: 1,
		CommandPriorities: map[string]int{"KVSCAN": 0, "set": 0, "MSET": 0}}}})
	g, ctx := in.gw, context.Background()
	c := client(t, in, nil)
	admitted := func() [2]int64 {
		return [2]int64{bucket(g, "default", 0).Admitted, bucket(g, "default", 1).Admitted}
	}
	for _, tc := range []struct {
		what string
		run  func() error
		want [2]int64 // admissions at priority 0 and 1
	}{
		{"GET", func() error { return ignoreNil(c.Get(ctx, "a").Err()) }, [2]int64{0, 1}},
		{"SET", func() error { return c.Set(ctx, "a", "1", 0).Err() }, [2]int64{1, 0}},
		{"KVSCAN", func() error { return c.Do(ctx, "KVSCAN", "a", "b").Err() }, [2]int64{1, 0}},
		{"EXEC of SETs", func() error {
			_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, "{t}a", "1", 0)
				p.MSet(ctx, "{t}b", "1")
				return nil
			})
			return err
		}, [2]int64{1, 0}},
		{"EXEC of a SET and a GET", func() error {
			_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, "{t}a", "1", 0)
				p.Get(ctx, "{t}b")
				return nil
			})
			return err
		}, [2]int64{0, 1}},
	} {
		before := admitted()
		require.NoError(t, tc.run(), tc.what)
		after := admitted()
		require.Equal(t, tc.want, [2]int64{after[0] - before[0], after[1] - before[1]}, tc.what)
	}
}

// A pipelined run admitted as one is queued at the highest priority of its
// commands.
func TestRunPrio(t *testing.T) {
	ten := newTenant(TenantConfig{Name: "a", CommandPriorities: map[string]int{"GET": 1}})
	get, set := commands["GET"], commands["SET"]
	require.Equal(t, 0, runPrio(ten, []job{{spec: set}, {spec: set}}))
	require.Equal(t, 1, runPrio(ten, []job{{spec: set}, {spec: get}, {spec: set}}))
	require.Equal(t, 1, runPrio(ten, []job{{spec: get}}))
	hi := newTenant(TenantConfig{Name: "b", Priority: 1, CommandPriorities: map[string]int{"GET": 0}})
	require.Equal(t, 1, runPrio(hi, []job{{spec: get}, {spec: set}}))
	require.Equal(t, 0, runPrio(hi, []job{{spec: get}}))
}

// ignoreNil returns err, or nil for a null reply (a missing key).
func ignoreNil(err error) error {
	if err == redis.Nil {
		return nil
	}
	return err
}
