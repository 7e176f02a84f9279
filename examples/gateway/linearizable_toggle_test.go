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
		g, fetch, first := sentFetchThenShardWrite(t, Config{})
		reg, err := control.New(control.Config{})
		require.NoError(t, err)
		require.NoError(t, g.registerKnobs(reg))
		ctx := context.Background()

		_, err = reg.Apply(control.Request{Who: "test", Changes: []control.Change{
			{Knob: "gateway.linearizable_reads", Value: control.Bool(true)}}})
		require.NoError(t, err)

		r := secondGet(t, g, fetch, first)
		assert.Equal(t, "new", string(r.value), "a GET begun with linearizable_reads on reads no older than the MGET")

		// A fetch sent with the knob on is not read again.
		calls := g.n.backendCalls.Load()
		r = g.one(ctx, g.open, op{kind: opGet, key: "k"})
		require.NoError(t, r.err)
		assert.Equal(t, "new", string(r.value))
		assert.Equal(t, calls+1, g.n.backendCalls.Load(), "one backend call for a GET")
	})
}
