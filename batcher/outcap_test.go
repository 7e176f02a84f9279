package batcher_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
)

// TestFlushAppendDoesNotLeak: a flush func that appends to out (more results
// than items) must not write into the batch's pooled result slab, whose spare
// capacity a later batch of another group reuses: that group's untouched
// entries, which must give the zero Resp, gave the appended results of the
// earlier group instead. reqs and out are now passed with no spare capacity.
func TestFlushAppendDoesNotLeak(t *testing.T) {
	b, err := batcher.New(batcher.Config[int]{MaxItems: 4},
		func(_ context.Context, g string, reqs []int, out []batcher.Result[string]) error {
			switch g {
			case "warm":
				for i := range out {
					out[i].Resp = "warm"
				}
			case "leak":
				out[0].Resp = "leak"
				out = append(out, batcher.Result[string]{Resp: "leaked"}, batcher.Result[string]{Resp: "leaked"})
				reqs = append(reqs, -1, -1)
				_, _ = out, reqs
			}
			return nil // "victim": every entry left untouched
		})
	require.NoError(t, err)
	defer b.Close()
	ctx := context.Background()
	setMax := func(n int) { require.NoError(t, b.SetConfig(batcher.Config[int]{MaxItems: n})) }
	for round := range 20 { // the pool may drop a batch (it does at random under -race)
		setMax(4)
		var ps []batcher.Pending[string, int, string]
		for i := range 4 {
			ps = append(ps, b.Start(ctx, "warm", i)) // the fourth closes the batch
		}
		for _, p := range ps {
			_, err := p.Wait()
			require.NoError(t, err)
		}
		setMax(1)
		v, err := b.Do(ctx, "leak", 0)
		require.NoError(t, err)
		require.Equal(t, "leak", v)
		setMax(3)
		ps = ps[:0]
		for i := range 3 {
			ps = append(ps, b.Start(ctx, "victim", i))
		}
		for i, p := range ps {
			v, err := p.Wait()
			require.NoError(t, err)
			require.Empty(t, v, "round %d: victim item %d got another group's result", round, i)
		}
	}
}
