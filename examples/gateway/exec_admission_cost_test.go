package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// An EXEC is admitted at the cost of its commands' keys, as a pipelined run
// and a command outside MULTI are (README: "cost = keys"). It cost one per
// queued command: an MSET of 20 keys inside MULTI cost 1, so a tenant got past
// the capacity that refused the same MSET sent alone, and shed's fair share,
// which is by cost, counted its transactions' writes at a fraction of their
// keys.
func TestExecAdmittedAtItsKeys(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", MinLimit: 8, MaxLimit: 8, QueueDeadline: Duration(20 * time.Millisecond)})
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Ping(ctx).Err())
	args := []any{"MSET"}
	for i := range 20 {
		args = append(args, fmt.Sprint("{c}k", i), "v")
	}

	// Idle: both are admitted (nothing in flight), each at its 20 keys.
	s0 := g.shedder.Stats()
	require.NoError(t, c.Do(ctx, args...).Err())
	s1 := g.shedder.Stats()
	require.Equal(t, int64(20), s1.AdmittedCost-s0.AdmittedCost, "MSET of 20 keys")
	_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Do(ctx, args...)
		p.Get(ctx, "{c}k0")
		p.Ping(ctx)
		return nil
	})
	require.NoError(t, err)
	s2 := g.shedder.Stats()
	require.Equal(t, int64(21), s2.AdmittedCost-s1.AdmittedCost, "MULTI, MSET of 20 keys, GET, PING, EXEC")

	// Another tenant's work holds all of the capacity but 1: the MSET does
	// not fit, alone or in a transaction.
	release, err := g.shedder.Acquire(ctx, "other", 0, 7)
	require.NoError(t, err)
	defer release()
	require.ErrorContains(t, c.Do(ctx, args...).Err(), "OVERLOADED", "MSET past the free capacity")
	_, err = c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Do(ctx, args...)
		return nil
	})
	require.ErrorContains(t, err, "OVERLOADED", "the same MSET in MULTI")
}
