package cache

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// indexed counts the nodes in the index.
func indexed[K comparable, V any](c *Cache[K, V]) int {
	n := 0
	for i := range c.shards {
		c.shards[i].ix.each(func(*entry[K, V]) { n++ })
	}
	return n
}

// TestDeferredAdmission holds the policy lock as a concurrent writer would and
// checks that writers defer their new nodes instead of waiting, and that the
// nodes reach the policy (and evict) once the lock is released.
func TestDeferredAdmission(t *testing.T) {
	t.Run("writers do not wait for a held lock", func(t *testing.T) {
		c, err := New[int, int](Config[int]{Capacity: 4})
		require.NoError(t, err)
		c.mu.Lock()
		for k := range 6 {
			c.Set(k, k) // would deadlock if it waited for the lock
		}
		assert.EqualValues(t, 6, c.deferred.Load())
		for k := range 6 {
			v, ok := c.TryGet(k)
			assert.True(t, ok, "a deferred node is served before it reaches the policy")
			assert.Equal(t, k, v)
		}
		c.mu.Unlock()
		assert.Equal(t, 4, c.Len(), "Len adds the deferred nodes, evicting down to the capacity")
		assert.Zero(t, c.deferred.Load())
		assert.Equal(t, 4, indexed(c), "the evicted nodes left the index")
		assert.EqualValues(t, 2, c.Stats().Evictions)
	})
	t.Run("a node invalidated while deferred is never added", func(t *testing.T) {
		c, err := New[int, int](Config[int]{Capacity: 4})
		require.NoError(t, err)
		c.mu.Lock()
		c.Set(1, 1)
		c.Set(2, 2)
		c.mu.Unlock() // released without maintain: both nodes still wait
		require.EqualValues(t, 2, c.deferred.Load())
		assert.True(t, c.Delete(1))
		assert.Zero(t, c.deferred.Load(), "the deleting writer's maintain drained the stripe")
		assert.Equal(t, 1, c.Len())
		assert.False(t, c.Contains(1))
		assert.True(t, c.Contains(2))
		assert.Equal(t, 1, indexed(c))
	})
	t.Run("a stripe defers at most addLen nodes", func(t *testing.T) {
		c, err := New[int, int](Config[int]{Capacity: 100})
		require.NoError(t, err)
		st := &c.stripes[0]
		c.mu.Lock()
		for k := range addLen {
			require.True(t, c.deferAddTo(st, &node[int]{key: k, hash: uint64(k)}))
		}
		assert.False(t, c.deferAddTo(st, &node[int]{key: -1}), "the stripe is full: the next writer must wait")
		assert.EqualValues(t, addLen, c.deferred.Load())
		c.mu.Unlock()
		assert.Equal(t, addLen, c.Len(), "Len drains the stripe")
		assert.Zero(t, st.na)
	})
}

// TestDeferredAdmissionStress races writers, readers and deletes on a small
// cache and then checks that no node was left in the index outside the policy
// (it would never be evicted) and that the bound holds once writes settle.
func TestDeferredAdmissionStress(t *testing.T) {
	const (
		capacity = 64
		keys     = 512
		workers  = 4
	)
	ops := 20_000
	if testing.Short() {
		ops = 2_000
	}
	c, err := New[int, int](Config[int]{Capacity: capacity})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for range ops {
				k := r.IntN(keys)
				switch r.IntN(10) {
				case 0:
					c.Delete(k)
				case 1, 2, 3, 4:
					c.Set(k, k)
				default:
					if v, ok := c.TryGet(k); ok && v != k {
						t.Errorf("TryGet(%d) = %d", k, v)
					}
				}
			}
		})
	}
	wg.Wait()
	n := c.Len()
	assert.LessOrEqual(t, n, capacity)
	assert.Zero(t, c.deferred.Load())
	assert.Equal(t, n, indexed(c), "every indexed node is in the policy")
}
