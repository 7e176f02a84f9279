package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// timedOutBackend applies shard fail's writes and then reports a timeout, as
// a Redis call cut by its timeout after the shard ran it does: the part's
// outcome is unknown, not "nothing ran".
type timedOutBackend struct {
	*hungBackend
	fail int
}

func (b *timedOutBackend) Do(ctx context.Context, shard int, ops []op, out []opResult) error {
	err := b.hungBackend.Do(ctx, shard, ops, out)
	if shard == b.fail && err == nil && ops[0].kind != opGet {
		return errors.New("i/o timeout")
	}
	return err
}

// TestPartialWriteOverShardShareWithFailedPart: an MSET whose part for a
// shard over its share of max_in_flight is refused, and whose part for
// another shard failed after the shard may have applied it (a timeout), is
// not a refusal either: it answered "-OVERLOADED ... back off" (nothing ran)
// whenever the refused key came first in the command, though the other
// shard's key was written. It answers the failed shard's error instead.
func TestPartialWriteOverShardShareWithFailedPart(t *testing.T) {
	in, keyOn, finish := holdShard1Share(t, func(hb *hungBackend) Backend {
		return &timedOutBackend{hungBackend: hb, fail: 0}
	})
	k0, k1 := keyOn(0, 0), keyOn(1, 0)
	ctx := context.Background()

	c := client(t, in, nil)
	err := c.MSet(ctx, k1, "v", k0, "v").Err() // the refused part first
	require.Error(t, err)
	assert.False(t, strings.HasPrefix(err.Error(), "OVERLOADED"), "a refusal, though shard 0 may have written: %v", err)
	assert.True(t, strings.HasPrefix(err.Error(), "ERR backend shard 0:"), "shard 0's failure: %v", err)
	require.Equal(t, "v", c.Get(ctx, k0).Val(), "shard 0's key was written")

	finish()
}
