package cache

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReplayWeightIsTheBufferingShift: a buffered hit stands for the hits
// its draw skipped when it was buffered, 1<<shift of the shift then in
// force, whatever the shift is at its replay. The replay weighted every hit
// a stripe held by the shift at the replay: hits buffered one by one before
// the read-mostly sampling started counted 64 each when another stripe's
// replay started it first, and hits drawn one in 64 counted one each after
// an insert ended it. Found by a review.
func TestReplayWeightIsTheBufferingShift(t *testing.T) {
	for _, tt := range []struct {
		name       string
		buffer     uint32 // the shift while the hits are buffered
		replay     uint32 // the shift at their replay
		weight     int    // what each stands for
		countedHit bool   // a counted hit (else an update, always buffered)
	}{
		{"hits buffered unsampled, replayed sampling", 0, sampleShiftReadMostly, 1, true},
		{"hits drawn one in 64, replayed unsampled", sampleShiftReadMostly, 0, 1 << sampleShiftReadMostly, true},
		{"hits drawn one in 4, replayed one in 64", sampleShiftOn, sampleShiftReadMostly, 1 << sampleShiftOn, true},
		{"updates while sampling", sampleShiftReadMostly, sampleShiftReadMostly, 1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New[uint64, uint64](Config[uint64]{Capacity: 100})
			require.NoError(t, err)
			n := &node[uint64]{}
			c.mu.Lock()
			c.pol.add(n)
			c.mu.Unlock()
			c.sampleShift.Store(tt.buffer)
			st := c.stripeAt(0x40a1b2c8)
			const buffered = 5
			for i := 0; st.n < buffered; i++ {
				require.Less(t, i, 1<<16, "the draw buffers one hit in 1<<shift")
				c.recordHit(st, n, tt.countedHit)
			}
			c.sampleShift.Store(tt.replay)

			c.mu.Lock()
			defer c.mu.Unlock()
			st.mu.Lock()
			hits := c.pol.hitsInSample
			c.replayLocked(st)
			st.mu.Unlock()
			assert.Equal(t, hits+buffered*tt.weight, c.pol.hitsInSample, "the climber's hits")
			assert.Equal(t, buffered*tt.weight, c.pol.hitsSinceAdd, "the hits since the insert")
		})
	}
}
