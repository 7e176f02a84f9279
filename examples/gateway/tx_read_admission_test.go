package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A read after WATCH goes through admission (shed per tenant x priority,
// then the aimd limiter) at the cost of its keys, as the same read outside
// a transaction. It skipped it, checked by the quota alone: a tenant looping
// WATCH k, GET ..., UNWATCH had its reads served while the gateway refused
// its plain GETs, so load shedding never cut a flood of them and the other
// tenants' share went to it (the isolation promise of issues #3 and #7).
func TestReadAfterWatchAdmitted(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", MinLimit: 8, MaxLimit: 8, QueueDeadline: Duration(20 * time.Millisecond)})
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil).Conn()
	defer c.Close()
	require.NoError(t, c.Ping(ctx).Err())

	// Idle: admitted once, at its keys.
	require.NoError(t, c.Do(ctx, "WATCH", "{w}a").Err())
	s0, l0 := g.shedder.Stats(), g.limiter.Stats()
	require.NoError(t, c.MGet(ctx, "{w}1", "{w}2", "{w}3").Err())
	s1, l1 := g.shedder.Stats(), g.limiter.Stats()
	require.Equal(t, int64(1), s1.Admitted-s0.Admitted, "shed admissions of an MGET after WATCH")
	require.Equal(t, int64(3), s1.AdmittedCost-s0.AdmittedCost, "its cost: its keys")
	require.Equal(t, int64(1), l1.Admitted-l0.Admitted, "limiter admissions")
	require.Equal(t, int64(1), l1.Succeeded-l0.Succeeded)
	require.Zero(t, s1.InFlight, "its admission given back")
	require.NoError(t, c.Do(ctx, "UNWATCH").Err())

	// Another tenant's work holds all of the capacity: the same GET is
	// refused after WATCH as outside it. The WATCH, admitted too on memkv
	// (TestMemkvWatchAdmitted), runs while the capacity is free.
	release, err := g.shedder.Acquire(ctx, "other", 0, 8)
	require.NoError(t, err)
	shed0 := g.n.shed.Load()
	require.ErrorContains(t, c.Get(ctx, "{w}1").Err(), "OVERLOADED", "GET at the admission limit")
	release()
	require.NoError(t, c.Do(ctx, "WATCH", "{w}a").Err())
	release, err = g.shedder.Acquire(ctx, "other", 0, 8)
	require.NoError(t, err)
	defer release()
	for range 3 {
		require.ErrorContains(t, c.Get(ctx, "{w}1").Err(), "OVERLOADED", "the same GET after WATCH")
	}
	require.NoError(t, c.Do(ctx, "UNWATCH").Err())
	require.Equal(t, uint64(4), g.n.shed.Load()-shed0, "each refusal counted shed")
}
