package main

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// gateClock is the system clock, except that once armed, the first reading
// waits until release: the reading of the shard's follower when it applies
// a checkpoint, which stalls it there.
type gateClock struct {
	mu      sync.Mutex
	armed   bool
	stalled chan struct{} // closed when a reading waits
	release chan struct{}
}

func (g *gateClock) Now() time.Time {
	g.mu.Lock()
	armed := g.armed
	g.armed = false
	g.mu.Unlock()
	if armed {
		close(g.stalled)
		<-g.release
	}
	return time.Now()
}

// A shard's follower stalled (in a checkpoint) while a commit writes more
// keys than the feed buffers: the subscription is cut, the cached key's
// event, last in the commit, is lost. Once the follower goes on, the tier
// must start the cache over, not serve the value that event changed.
func TestMemkvFeedOverflowStartsOver(t *testing.T) {
	clk := &gateClock{stalled: make(chan struct{}), release: make(chan struct{})}
	b, ct, load := clockedMemkvTier(t, clk, time.Minute)
	ctx := context.Background()
	st := b.stores[0]
	_, err := st.Put(ctx, []byte("k"), encodeValue([]byte("old"), 0))
	require.NoError(t, err)
	ct.followMemkv(b)
	r, err := ct.get(ctx, 0, "k", load)
	require.NoError(t, err)
	require.Equal(t, "old", string(r.value))
	require.True(t, ct.contains(0, "k"))

	clk.mu.Lock()
	clk.armed = true
	clk.mu.Unlock()
	st.Checkpoint()
	<-clk.stalled // the follower waits in the checkpoint
	var sets [][]byte
	for i := range st.Config().FeedBuffer + 10 {
		sets = append(sets, []byte(fmt.Sprint("f", i)), encodeValue([]byte("x"), 0))
	}
	sets = append(sets, []byte("k"), encodeValue([]byte("new"), 0))
	_, err = st.Commit(ctx, &memkv.CommitRequest{ReadVersion: st.ReadVersion(), Sets: sets})
	require.NoError(t, err)
	require.Equal(t, uint64(1), st.Stats().FeedOverflows)
	close(clk.release)
	eventually(t, "no reset after the overflow", func() bool { return ct.resets.Load() != 0 })
	r, err = ct.get(ctx, 0, "k", load)
	require.NoError(t, err)
	require.Equal(t, "new", string(r.value), "a value the lost event changed")
	require.Equal(t, 1, int(st.Stats().Subscribers), "the old subscription is closed")
}
