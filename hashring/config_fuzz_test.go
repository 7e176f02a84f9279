package hashring_test

import (
	"fmt"
	"math"
	"math/bits"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/hashring"
)

// FuzzConfig builds rings from an arbitrary Config.Slots (FuzzRingOps draws it
// from a short table) and node weights from opsWeights (NaN, ±Inf, ±0,
// subnormal, huge and ordinary). New must refuse a Slots that is not 0 or a
// power of two in [2^8, 2^24] with ErrInvalidConfig, refuse bad nodes with
// the typed errors membershipErrs expects, and build every other ring: its
// Config reads back the slots in use, and (for tables small enough to walk)
// it keeps FuzzRing's invariants, answers lookups with members and survives
// encoding.
func FuzzConfig(f *testing.F) {
	f.Add(int64(0), []byte{0, 1, 2})
	f.Add(int64(1<<8), []byte{10, 15, 16, 0})
	f.Add(int64(1<<8-1), []byte{0})
	f.Add(int64(1<<24), []byte{0})
	f.Add(int64(1<<25), []byte{0})
	f.Add(int64(1<<32+1<<8), []byte{0}) // 2^8 once truncated to 32 bits
	f.Add(int64(math.MinInt64), []byte{0})
	f.Add(int64(-1<<8), []byte{3})
	f.Add(int64(3<<8), []byte{3})
	f.Add(int64(1<<12), []byte{11, 12, 13, 14, 9, 9})
	f.Fuzz(func(t *testing.T, slots int64, weights []byte) {
		if int64(int(slots)) != slots {
			return // does not fit this platform's int
		}
		cfg := hashring.Config{Slots: int(slots)}
		var nodes []hashring.Node
		for i, w := range weights[:min(len(weights), 8)] {
			nodes = append(nodes, hashring.Node{ID: fmt.Sprint("n", i), Weight: opsWeights[int(w)%len(opsWeights)]})
		}
		r, err := hashring.New(cfg, nodes)
		m := cfg.Slots
		if m == 0 {
			m = hashring.DefaultSlots
		}
		if m < 1<<8 || m > 1<<24 || bits.OnesCount64(uint64(m)) != 1 {
			require.ErrorIs(t, err, hashring.ErrInvalidConfig, "Slots %d", cfg.Slots)
			require.Nil(t, r)
			return
		}
		membershipErrs("new", nodes).check(t, err)
		if err != nil {
			require.Nil(t, r)
			return
		}
		require.Equal(t, m, r.Config().Slots)
		require.Equal(t, m, r.Stats().Slots)
		checkLookups(t, r, "k", 3)
		if m > 1<<12 {
			return // walking every slot is the slow part
		}
		checkStep(t, &hashring.Ring{}, r)
		checkRoundTripAny(t, r)
		if r.Len() > 1 {
			child, err := r.Remove(nodes[0].ID)
			require.NoError(t, err)
			checkStep(t, r, child)
		}
	})
}
