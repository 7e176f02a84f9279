package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTxReadTooOldCharged: a read after WATCH whose snapshot leaves the
// memkv shard's history window while it waits for admission reads the
// store, fails with the snapshot too old, and runs again outside the
// transaction. Both reads touched the shard, and a failed read is charged,
// as KVSCAN's and a failed batch are: the tenant is charged two backend
// calls. The failed one was charged nothing, as if the read had not run.
func TestTxReadTooOldCharged(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", MinLimit: 8, MaxLimit: 8, QueueDeadline: Duration(10 * time.Second)})
	g := in.gw
	ctx := context.Background()
	const k = "{old}k"
	st := mustMemkv(t, g.backend).stores[g.shard(k)]
	cfg := st.Config()
	cfg.HistoryVersions = 1
	require.NoError(t, st.SetConfig(cfg))
	_, err := st.Put(ctx, []byte(k), encodeValue([]byte("v0"), 0))
	require.NoError(t, err)
	conn := client(t, in, nil).Conn()
	defer conn.Close()
	require.NoError(t, conn.Do(ctx, "WATCH", k).Err())

	// Another tenant holds the capacity: the read after WATCH waits in
	// shed's queue, past the check of its snapshot.
	release, err := g.shedder.Acquire(ctx, "other", 0, 8)
	require.NoError(t, err)
	ten := g.tenants["default"]
	calls0 := ten.backendCalls.Load()
	got := make(chan string, 1)
	go func() { got <- conn.Get(ctx, k).Val() }()
	eventually(t, "the read did not queue", func() bool { return g.shedder.Stats().Queued == 1 })
	for i := range 3 { // commits on the shard move its horizon past the snapshot
		_, err := st.Put(ctx, fmt.Append(nil, "{old}x", i), encodeValue([]byte("x"), 0))
		require.NoError(t, err)
	}
	require.Less(t, uint64(0), st.Horizon())
	release()
	assert.Equal(t, "v0", <-got)
	assert.Equal(t, uint64(2), ten.backendCalls.Load()-calls0,
		"backend calls charged: the read that met the snapshot too old, and its run outside the transaction")
}
