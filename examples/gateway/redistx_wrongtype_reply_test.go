package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRedisTxWrongTypeReplyAsRedis: a GET or INCR of a key of another type
// than string, queued in MULTI or sent after WATCH (read through the
// transaction), answers Redis's own error, "-WRONGTYPE Operation against a
// key holding the wrong kind of value", as the README says. The engine's
// read error came back wrapped by package txn: "-ERR txn: read failed:
// WRONGTYPE ...", an ERR where clients that tell errors apart by their code
// look for WRONGTYPE. Found by a review.
func TestRedisTxWrongTypeReplyAsRedis(t *testing.T) {
	gw, direct := redisTxSetup(t)
	ctx := context.Background()
	require.NoError(t, direct.RPush(ctx, "wtr:l", "x").Err())
	queue := func(p redis.Pipeliner) error {
		p.Get(ctx, "wtr:l")
		p.Incr(ctx, "wtr:l")
		return nil
	}
	want, err := direct.TxPipelined(ctx, queue)
	require.Error(t, err)
	got, err := gw.TxPipelined(ctx, queue)
	require.Error(t, err)
	require.Len(t, got, len(want))
	for i := range want {
		require.Error(t, want[i].Err())
		assert.Equal(t, want[i].Err().Error(), got[i].Err().Error(), "%s inside MULTI", want[i].Name())
	}

	require.NoError(t, gw.Watch(ctx, func(tx *redis.Tx) error {
		assert.Equal(t, want[0].Err().Error(), tx.Get(ctx, "wtr:l").Err().Error(), "GET after WATCH")
		return nil
	}, "wtr:l"))
}
