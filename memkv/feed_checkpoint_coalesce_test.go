package memkv_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// drain takes every event buffered in sub.
func drain(t *testing.T, sub *memkv.Subscription) []memkv.Event {
	t.Helper()
	var evs []memkv.Event
	for range 1 << 16 {
		e, ok, err := sub.TryNext()
		require.NoError(t, err)
		if !ok {
			return evs
		}
		evs = append(evs, e)
	}
	t.Fatal("the feed never ran dry")
	return nil
}

// An idle store checkpointed from a ticker (as Config.CheckpointEvery
// suggests) sends no data: a subscriber that reads nothing meanwhile was cut
// off with ErrOverflow after FeedBuffer checkpoints, and had to resubscribe
// and drop its derived state although nothing had changed. Checkpoints with
// no write between them now take one slot: only the newest says anything.
func TestIdleCheckpointsDoNotOverflow(t *testing.T) {
	s := newStore(t, memkv.Config{FeedBuffer: 4, CheckpointEvery: 1})
	put(t, s, "a", "1")
	sub := s.Subscribe()
	defer sub.Close()
	for range 10 {
		s.Checkpoint()
	}
	// Commits that write nothing (deleting an absent key) take versions and
	// count toward CheckpointEvery as well.
	for range 10 {
		_, err := s.Delete(ctx, b("absent"))
		require.NoError(t, err)
	}
	evs := drain(t, sub)
	assert.Equal(t, uint64(0), s.Stats().FeedOverflows)
	require.Len(t, evs, 1, "%+v", evs)
	assert.Equal(t, memkv.EventCheckpoint, evs[0].Kind)
	assert.Equal(t, s.ReadVersion(), evs[0].Version, "the newest watermark")
}

// Coalescing keeps the contract: writes are all delivered, in order, each
// followed by the newest checkpoint that came after it (with that
// checkpoint's cut), and a checkpoint the subscriber took is not replaced.
func TestCoalescedCheckpointsKeepOrder(t *testing.T) {
	s := newStore(t, memkv.Config{FeedBuffer: 8, CheckpointEvery: 1 << 20})
	sub := s.Subscribe()
	defer sub.Close()
	put(t, s, "a", "1")
	s.Checkpoint()
	s.Checkpoint()
	put(t, s, "b", "2")
	s.Checkpoint()
	_, err := s.Delete(ctx, b("absent"))
	require.NoError(t, err)
	last := s.Checkpoint()
	var got []string
	var cuts []memkv.Event
	for _, e := range drain(t, sub) {
		got = append(got, show(e))
		if e.Kind == memkv.EventCheckpoint {
			cuts = append(cuts, e)
		}
	}
	assert.Equal(t, []string{"w1 a=1", "c1", "w2 b=2", "c3"}, got)
	require.Len(t, cuts, 2)
	assert.Equal(t, last, cuts[1].Version)
	assert.False(t, cuts[1].At.Before(cuts[0].At), "the newest cut")

	// Taken, the checkpoint stays taken: the next one is a new event.
	s.Checkpoint()
	s.Checkpoint()
	got = got[:0]
	for _, e := range drain(t, sub) {
		got = append(got, show(e))
	}
	assert.Equal(t, []string{"c3"}, got)
}
