package main

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// TestLinearizableReadsTurnedOnWithFetchInFlight: a fetch of "k" sent while
// linearizable_reads was off read "old", and its answer is on its way back;
// another client of the shard then wrote "new", an MGET read it, and the
// operator turned gateway.linearizable_reads on. A GET issued after the knob's
// change returned must not answer "old": the fetch it finds in the coalescing
// group was sent before it began. The fetch had stayed in the group (only
// fetches sent with the knob on leave it as they go), so the GET joined it.
func TestLinearizableReadsTurnedOnWithFetchInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg, err := Config{}.withDefaults()
		require.NoError(t, err)
		mk, err := newMemkvBackend(1)
		require.NoError(t, err)
		b := &holdingBackend{Backend: mk, holds: map[held]chan struct{}{}}
		g, err := newGateway(cfg, b, nil)
		require.NoError(t, err)
		defer func() { _ = g.Close() }()
		reg, err := control.New(control.Config{})
		require.NoError(t, err)
		require.NoError(t, g.registerKnobs(reg))
		ctx := context.Background()
		require.NoError(t, g.one(ctx, g.open, op{kind: opSet, key: "k", value: []byte("old")}).err)

		fetch := b.hold(opGet, "k")
		first := make(chan opResult, 1)
		go func() { first <- g.one(ctx, g.open, op{kind: opGet, key: "k"}) }()
		synctest.Wait() // the fetch read "old"; its answer is held

		res := make([]opResult, 1)
		require.NoError(t, mk.Do(ctx, 0, []op{{kind: opSet, key: "k", value: []byte("new")}}, res))
		require.NoError(t, res[0].err)
		rs := g.run(ctx, g.open, []op{{kind: opGet, key: "k"}, {kind: opGet, key: "other"}})
		require.NoError(t, rs[0].err)
		require.Equal(t, "new", string(rs[0].value), "the MGET reads the shard's write")

		_, err = reg.Apply(control.Request{Who: "test", Changes: []control.Change{
			{Knob: "gateway.linearizable_reads", Value: control.Bool(true)}}})
		require.NoError(t, err)

		second := make(chan opResult, 1)
		go func() { second <- g.one(ctx, g.open, op{kind: opGet, key: "k"}) }()
		synctest.Wait()
		close(fetch)
		assert.Equal(t, "old", string((<-first).value), "the first GET began before the write")
		r := <-second
		require.NoError(t, r.err)
		assert.Equal(t, "new", string(r.value), "a GET begun with linearizable_reads on reads no older than the MGET")

		// A fetch sent with the knob on is not read again.
		calls := g.n.backendCalls.Load()
		r = g.one(ctx, g.open, op{kind: opGet, key: "k"})
		require.NoError(t, r.err)
		assert.Equal(t, "new", string(r.value))
		assert.Equal(t, calls+1, g.n.backendCalls.Load(), "one backend call for a GET")
	})
}
