package batcher_test

import (
	"context"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
)

// TestNaNGroupIsEvicted: a group not equal to itself (a float NaN, or a struct
// holding one) finds no entry in the group map, so each of its items makes a
// new one; once idle, those entries are evicted like any other group's, and
// EvictedGroups counts only entries that are gone.
func TestNaNGroupIsEvicted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const items = 50
		b, err := batcher.New(batcher.Config[int]{MaxItems: 4, Linger: time.Millisecond, IdleTTL: 10 * time.Millisecond},
			func(_ context.Context, _ float64, reqs []int, out []batcher.Result[int]) error {
				for i, r := range reqs {
					out[i].Resp = 2 * r
				}
				return nil
			})
		require.NoError(t, err)
		defer b.Close()
		for i := range items {
			v, err := b.Do(context.Background(), math.NaN(), i)
			require.NoError(t, err)
			require.Equal(t, 2*i, v)
		}
		time.Sleep(20 * time.Millisecond) // virtual: every group is past IdleTTL
		b.EvictIdle()
		s := b.Stats()
		assert.Zero(t, s.LiveGroups, "idle NaN groups are evicted")
		assert.Equal(t, uint64(items), s.EvictedGroups, "each entry is evicted once")
	})
}
