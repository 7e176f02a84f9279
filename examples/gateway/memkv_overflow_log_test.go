package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// overflowOnce stalls shard 0's follower in a checkpoint (clk), commits more
// keys than its feed buffers, so that the store cuts it off, lets it go on,
// and waits for the tier to start the shard's cache over.
func overflowOnce(t *testing.T, clk *gateClock, b *memkvBackend, ct *cacheTier) {
	t.Helper()
	ctx := context.Background()
	st := b.stores[0]
	resets := ct.resets.Load()
	clk.mu.Lock()
	clk.armed, clk.stalled, clk.release = true, make(chan struct{}), make(chan struct{})
	stalled, release := clk.stalled, clk.release
	clk.mu.Unlock()
	st.Checkpoint()
	<-stalled // the follower waits in the checkpoint
	var sets [][]byte
	for i := range st.Config().FeedBuffer + 10 {
		sets = append(sets, []byte(fmt.Sprint("f", i)), encodeValue([]byte("x"), 0))
	}
	_, err := st.Commit(ctx, &memkv.CommitRequest{ReadVersion: st.ReadVersion(), Sets: sets})
	require.NoError(t, err)
	close(release)
	eventually(t, "no reset after the overflow", func() bool { return ct.resets.Load() != resets })
}

// TestMemkvFeedOverflowLogged: a memkv shard's change feed cut off for
// falling behind (ErrOverflow) is a loss of the feed, and its cache is
// emptied: the README's logs name "the caching tier's change feed of a shard
// lost and back (with the cache emptied)", at most one warning per 10 s.
// Before, an overflow logged nothing: the hit rate fell to zero for a moment
// with no line saying why.
func TestMemkvFeedOverflowLogged(t *testing.T) {
	clk := &gateClock{}
	b, ct, _ := clockedMemkvTier(t, clk, time.Minute)
	var logs syncBuffer
	ct.log = slog.New(slog.NewJSONHandler(&logs, nil))
	ct.followMemkv(b)
	overflowOnce(t, clk, b, ct)
	warnings := func() int { return strings.Count(logs.String(), `"level":"WARN"`) }
	// Logged just after the reset, on the feed's goroutine.
	eventually(t, "an overflow of the change feed logged no warning", func() bool { return warnings() > 0 })
	require.Contains(t, logs.String(), `"shard":0`)
	overflowOnce(t, clk, b, ct)
	overflowOnce(t, clk, b, ct)
	ct.Close() // the feed's goroutine has logged what it logs
	require.Equal(t, 1, warnings(), "at most one warning per 10 s: %s", logs.String())
}
