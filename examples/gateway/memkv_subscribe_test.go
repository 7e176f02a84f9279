package main

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) Now() time.Time { return time.Unix(0, c.ns.Load()) }

// clockedMemkvTier returns a one-shard memkv backend and a caching tier of
// 100 entries with the staleness bound given whose cache reads clk, and a
// load of key "k" from the backend; the tier is closed at the test's end.
func clockedMemkvTier(t *testing.T, clk cache.Clock, staleness time.Duration) (*memkvBackend, *cacheTier, func(context.Context) (opResult, error)) {
	t.Helper()
	b, err := newMemkvBackend(1)
	require.NoError(t, err)
	ct, err := newCacheTier(1, 100, staleness)
	require.NoError(t, err)
	ct.cfg.Clock = clk
	c, err := cache.New[string, cached](ct.cfg)
	require.NoError(t, err)
	ct.caches[0].Store(c)
	t.Cleanup(ct.Close)
	load := func(ctx context.Context) (opResult, error) {
		out := make([]opResult, 1)
		err := b.Do(ctx, 0, []op{{kind: opGet, key: "k"}}, out)
		return out[0], err
	}
	return b, ct, load
}

// A fill that lands in a shard's cache before its follower has subscribed
// (at start, or between reset and the new Subscribe after an overflow), and a
// write to the store in that window: the write is in no subscription, and the
// next checkpoint vouches for the stale entry beyond the staleness bound.
func TestMemkvFillBeforeSubscribe(t *testing.T) {
	clk := &fakeClock{}
	clk.ns.Store(time.Now().UnixNano())
	b, ct, load := clockedMemkvTier(t, clk, time.Second) // a clock the test moves
	ctx := context.Background()
	st := b.stores[0]
	_, err := st.Put(ctx, []byte("k"), encodeValue([]byte("v1"), 0))
	require.NoError(t, err)
	// The gateway serves as soon as followMemkv returns; with one P the
	// follower goroutines it started have not run yet (nothing here blocks).
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ct.followMemkv(b)
	// A GET served before the follower goroutine ran its Subscribe.
	r, err := ct.get(ctx, 0, "k", load)
	require.NoError(t, err)
	require.Equal(t, "v1", string(r.value))
	// A write behind the gateway's back, in the same window.
	_, err = st.Put(ctx, []byte("k"), encodeValue([]byte("v2"), 0))
	require.NoError(t, err)
	// Ten bounds later, a checkpoint arrives and is applied.
	clk.ns.Add(int64(10 * time.Second))
	eventually(t, "checkpoint not applied", func() bool {
		v := st.Checkpoint()
		return ct.caches[0].Load().Stats().Watermark >= v
	})
	r, err = ct.get(ctx, 0, "k", load)
	require.NoError(t, err)
	require.Equal(t, "v2", string(r.value), "a hit 10 bounds after a change committed still misses it")
}
