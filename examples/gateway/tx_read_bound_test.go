package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestReadsAfterWatchBounded: the keys a connection reads through its
// transaction after WATCH (each held until EXEC: on Redis shards the state
// of every one, which the commit script then checks) are bounded by
// max_args in all, as the keys it watches are. Before, every GET after
// WATCH added its key for as long as the connection kept the transaction
// open: memory grew without bound with the GETs of one connection. Past
// the bound, reads run as outside a transaction, as all of Redis's do: not
// validated at EXEC, which then commits where Redis's does.
func TestReadsAfterWatchBounded(t *testing.T) {
	for _, b := range memkvAndRedis() {
		t.Run(b.name, func(t *testing.T) {
			const limit, reads = 8, 50
			in := b.start(t, Config{HTTPAddr: "-", Limits: Limits{MaxArgs: limit}})
			ctx := context.Background()
			c := client(t, in, &redis.Options{PoolSize: 1})
			other := client(t, in, nil)
			conn := c.Conn()
			t.Cleanup(func() { _ = conn.Close() })
			require.NoError(t, conn.Do(ctx, "CLIENT", "SETNAME", "watcher").Err())
			require.NoError(t, conn.Do(ctx, "WATCH", "{w}a").Err())
			for i := range reads {
				require.ErrorIs(t, conn.Get(ctx, fmt.Sprintf("{w}k%d", i)).Err(), redis.Nil)
			}
			if e, ok := namedSession(t, in, "watcher").txs.eng.(*redisTxEngine); ok {
				require.LessOrEqual(t, len(e.seen), limit+1, "the states the transaction holds: the watched key and max_args read")
			}
			require.NoError(t, other.Set(ctx, fmt.Sprintf("{w}k%d", reads-1), "x", 0).Err())
			_, err := conn.TxPipelined(ctx, func(p redis.Pipeliner) error { return p.Set(ctx, "{w}out", "1", 0).Err() })
			require.NoError(t, err, "a key read past the bound is not validated, as Redis validates none")
			require.Equal(t, "1", other.Get(ctx, "{w}out").Val())
		})
	}
}

// namedSession returns the connection of in named name (CLIENT SETNAME),
// idle between its commands.
func namedSession(t *testing.T, in *instance, name string) *session {
	t.Helper()
	in.srv.mu.Lock()
	defer in.srv.mu.Unlock()
	for ss := range in.srv.conns {
		if ss.name == name {
			return ss
		}
	}
	t.Fatalf("no connection named %q", name)
	return nil
}
