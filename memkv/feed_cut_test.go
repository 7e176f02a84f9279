package memkv_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// A checkpoint carries its cut (At), the time every write up to its version
// was visible, whether the store cut it on its own (CheckpointEvery) or was
// asked to; a write carries none. A follower that reads the checkpoint late
// counts its staleness from At, so its lag does not stretch the bound.
func TestCheckpointCarriesItsCut(t *testing.T) {
	s := newStore(t, memkv.Config{CheckpointEvery: 1})
	sub := s.Subscribe()
	defer sub.Close()
	before := time.Now()
	var kinds []memkv.EventKind
	take := func(after time.Time) {
		for {
			e, ok, err := sub.TryNext()
			require.NoError(t, err)
			if !ok {
				return
			}
			kinds = append(kinds, e.Kind)
			if e.Kind == memkv.EventWrite {
				require.True(t, e.At.IsZero(), "a write carries no cut: %v", e.At)
				continue
			}
			require.False(t, e.At.Before(before), "cut %v before the commit began (%v)", e.At, before)
			require.False(t, e.At.After(after), "cut %v after Checkpoint returned (%v)", e.At, after)
		}
	}
	put(t, s, "a", "1") // a write and the store's own checkpoint
	take(time.Now())
	// Taken before: a checkpoint still buffered would take the new one's
	// place (TestCoalescedCheckpointsKeepOrder).
	s.Checkpoint() // an asked-for one
	take(time.Now())
	require.Equal(t, []memkv.EventKind{memkv.EventWrite, memkv.EventCheckpoint, memkv.EventCheckpoint}, kinds)
}
