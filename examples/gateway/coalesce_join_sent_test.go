package main

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// holdingBackend answers its calls, then holds the answer of the next call
// that is a single op of a kind on a key, until that hold's channel closes:
// a shard whose reply is on its way back.
type holdingBackend struct {
	Backend
	mu    sync.Mutex
	holds map[held]chan struct{}
}

type held struct {
	kind opKind
	key  string
}

func (b *holdingBackend) hold(kind opKind, key string) chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	ch := make(chan struct{})
	b.holds[held{kind, key}] = ch
	return ch
}

func (b *holdingBackend) Do(ctx context.Context, shard int, ops []op, out []opResult) error {
	err := b.Backend.Do(ctx, shard, ops, out)
	if len(ops) == 1 {
		b.mu.Lock()
		k := held{ops[0].kind, ops[0].key}
		ch := b.holds[k]
		delete(b.holds, k)
		b.mu.Unlock()
		if ch != nil {
			<-ch
		}
	}
	return err
}

// TestCoalescedGetAfterShardWrite: a fetch of "k" read "old" and its answer
// is on the way back; another client of the shard then wrote "new", and an
// MGET (which does not coalesce) read "new" and returned. A GET issued after
// that must not answer "old" with linearizable_reads on: its fetch left the
// coalescing group as it was sent. By default it joins that fetch and answers
// "old", one backend round trip old (the README's documented staleness).
// Writes through the gateway drop the key's fetch themselves (gateway.go), so
// the write here goes to the shard directly, as another client's would.
func TestCoalescedGetAfterShardWrite(t *testing.T) {
	for _, tc := range []struct {
		linearizable bool
		want         string
		joins        uint64
	}{
		{linearizable: false, want: "old", joins: 1},
		{linearizable: true, want: "new", joins: 0},
	} {
		t.Run(fmt.Sprintf("linearizable_reads=%v", tc.linearizable), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g, fetch, first := sentFetchThenShardWrite(t, Config{LinearizableReads: tc.linearizable})
				joins := g.flights.Stats().Joins
				r := secondGet(t, g, fetch, first)
				assert.Equal(t, tc.want, string(r.value))
				assert.Equal(t, tc.joins, g.flights.Stats().Joins-joins, "joins of the second GET")
			})
		})
	}
}

// sentFetchThenShardWrite sets up, inside a synctest bubble, a gateway (cfg)
// on one memkv shard whose fetch of "k" read "old" and whose answer is held
// on its way back; another client of the shard then wrote "new", and an MGET
// (which does not coalesce) read it. It returns the gateway (closed at the
// test's end), the hold to close, and where the first GET's answer comes.
func sentFetchThenShardWrite(t *testing.T, cfg Config) (*Gateway, chan struct{}, <-chan opResult) {
	t.Helper()
	cfg, err := cfg.withDefaults()
	require.NoError(t, err)
	mk, err := newMemkvBackend(1)
	require.NoError(t, err)
	b := &holdingBackend{Backend: mk, holds: map[held]chan struct{}{}}
	g, err := newGateway(cfg, b, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Close() })
	ctx := context.Background()
	require.NoError(t, g.one(ctx, g.open, op{kind: opSet, key: "k", value: []byte("old")}).err)

	fetch := b.hold(opGet, "k")
	first := make(chan opResult, 1)
	go func() { first <- g.one(ctx, g.open, op{kind: opGet, key: "k"}) }()
	synctest.Wait() // the fetch read "old"; its answer is held

	// Another client of the shard writes "new".
	res := make([]opResult, 1)
	require.NoError(t, mk.Do(ctx, 0, []op{{kind: opSet, key: "k", value: []byte("new")}}, res))
	require.NoError(t, res[0].err)
	rs := g.run(ctx, g.open, []op{{kind: opGet, key: "k"}, {kind: opGet, key: "other"}})
	require.NoError(t, rs[0].err)
	require.Equal(t, "new", string(rs[0].value), "the MGET reads the shard's write")
	return g, fetch, first
}

// secondGet issues a GET of "k" while the held fetch of sentFetchThenShardWrite
// is still out, then releases that fetch: the first GET answers "old" (it
// began before the write), and secondGet returns the second GET's answer.
func secondGet(t *testing.T, g *Gateway, fetch chan struct{}, first <-chan opResult) opResult {
	t.Helper()
	second := make(chan opResult, 1)
	go func() { second <- g.one(context.Background(), g.open, op{kind: opGet, key: "k"}) }()
	synctest.Wait()
	close(fetch)
	assert.Equal(t, "old", string((<-first).value), "the first GET began before the write")
	r := <-second
	require.NoError(t, r.err)
	return r
}
