package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWatchPastHistoryWindow: on memkv, a transaction whose snapshot falls
// out of its shard's history window (writes by others after WATCH) can no
// longer commit, but the connection must not see errors Redis never gives:
// a read after WATCH answers the key's value (from the store), a further
// WATCH answers OK, and EXEC answers null, as for a watched key that
// changed, so the client retries. They used to answer "transaction too old"
// and "transaction is done" errors.
func TestWatchPastHistoryWindow(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	ctx := context.Background()
	const k = "{old}k"
	st := mustMemkv(t, in.gw.backend).stores[in.gw.shard(k)]
	cfg := st.Config()
	cfg.HistoryVersions = 1
	require.NoError(t, st.SetConfig(cfg))
	other := client(t, in, nil)
	require.NoError(t, other.Set(ctx, k, "v0", 0).Err())
	conn := client(t, in, nil).Conn()
	defer conn.Close()

	outOfWindow := func() {
		t.Helper()
		for i := range 3 { // commits on the shard move its horizon past the snapshot
			require.NoError(t, other.Set(ctx, fmt.Sprint("{old}x", i), "x", 0).Err())
		}
	}

	require.NoError(t, conn.Do(ctx, "WATCH", k).Err())
	outOfWindow()
	assert.Equal(t, "v0", conn.Get(ctx, k).Val(), "a read after WATCH")
	assert.NoError(t, conn.Do(ctx, "WATCH", "{old}y").Err(), "a further WATCH")
	require.NoError(t, conn.Do(ctx, "MULTI").Err())
	require.NoError(t, conn.Do(ctx, "SET", k, "v1").Err())
	assert.ErrorIs(t, conn.Do(ctx, "EXEC").Err(), redis.Nil, "EXEC of a transaction past the window")
	assert.Equal(t, "v0", other.Get(ctx, k).Val(), "nothing applied")

	// Reads inside MULTI meet the window too.
	require.NoError(t, conn.Do(ctx, "WATCH", k).Err())
	outOfWindow()
	require.NoError(t, conn.Do(ctx, "MULTI").Err())
	require.NoError(t, conn.Do(ctx, "GET", k).Err())
	require.NoError(t, conn.Do(ctx, "SET", k, "v1").Err())
	assert.ErrorIs(t, conn.Do(ctx, "EXEC").Err(), redis.Nil, "EXEC whose read is past the window")
	assert.Equal(t, "v0", other.Get(ctx, k).Val(), "nothing applied")
}
