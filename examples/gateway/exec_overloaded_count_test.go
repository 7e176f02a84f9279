package main

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// An EXEC refused by the admission limiter refuses its data commands, as a
// refused plain pipeline run refuses each of its commands, and as an EXEC
// refused over quota or shed counts each of them throttled or shed:
// gateway_overloaded_total ("Commands refused by admission") counts them
// all, as the request metrics count each one failed. It counted one.
func TestExecOverloadedCountsCommands(t *testing.T) {
	in := startGateway(t, Config{MinLimit: 1, MaxLimit: 1})
	g := in.gw
	ctx := context.Background()
	// Hold the limiter's only slot: shed (capacity 1, nothing in flight)
	// admits, the limiter refuses.
	done, err := g.limiter.TryAcquire()
	require.NoError(t, err)
	defer done(true)

	c := client(t, in, nil)
	overloaded := func(cmds []redis.Cmder) (n int) {
		for _, c := range cmds {
			if err := c.Err(); err != nil && strings.HasPrefix(err.Error(), "OVERLOADED") {
				n++
			}
		}
		return n
	}
	// A plain pipeline of three SETs: each is answered OVERLOADED, each counts.
	cmds, _ := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, k := range []string{"a", "b", "c"} {
			p.Set(ctx, k, "v", 0)
		}
		return nil
	})
	require.Equal(t, 3, overloaded(cmds))
	require.Equal(t, uint64(3), g.n.overloaded.Load())

	// Three SETs of one shard in a transaction: EXEC answers OVERLOADED.
	_, err = c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		for _, k := range []string{"{t}a", "{t}b", "{t}c"} {
			p.Set(ctx, k, "v", 0)
		}
		return nil
	})
	require.ErrorContains(t, err, "OVERLOADED")
	failed := 0
	for _, ten := range g.tenants {
		for i := range ten.series {
			if cs := ten.series[i].Load(); cs != nil {
				cs.eachStripe(func(st *cmdStripe) {
					st.mu.Lock()
					failed += int(st.failed)
					st.mu.Unlock()
				})
			}
		}
	}
	require.Equal(t, 6, failed, "the request metrics count each SET refused")
	require.Equal(t, uint64(6), g.n.overloaded.Load(), "the overloaded counter counts each SET refused")
}
