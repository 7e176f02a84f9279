package cache

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInvalidateFastPath checks when an invalidation skips the shard lock: a
// key neither cached nor with a fill record in its shard returns at once; a
// cached key, or a shard holding any fill record, takes the lock.
func TestInvalidateFastPath(t *testing.T) {
	c, err := New[int, int](Config[int]{Capacity: 100})
	require.NoError(t, err)
	shardOf := func(k int) *shard[int, int] { return &c.shards[c.hash(k)&(numShards-1)] }

	assert.False(t, c.Delete(1), "absent key, no record: nothing removed")
	assert.Zero(t, shardOf(1).seq, "the fast path took no lock: no sequence bump")

	c.Set(1, 10)
	assert.True(t, c.Delete(1), "a cached key is removed")

	_, err = c.Get(context.Background(), 2, func(context.Context) (int, error) { return 20, nil })
	require.NoError(t, err)
	s := shardOf(2)
	assert.Equal(t, int32(1), s.records.Load(), "the fill left its record")
	seq := s.seq
	assert.True(t, c.Delete(2))
	assert.Equal(t, seq+1, s.seq, "the slow path bumped the sequence")
	assert.Zero(t, s.records.Load(), "the invalidation dropped the finished fill's record")
}

// TestInvalidateFastPathRace races write-through invalidations (a version
// bumped at the backend, then Delete, as a gateway does after a write) of 512
// keys against reads through the cache, so that most invalidations find
// their shard without a fill record and skip the lock, and some race a fill
// that registered just before. No read may return a version older than one
// whose invalidation had returned when the read started.
func TestInvalidateFastPathRace(t *testing.T) {
	const keys = 512
	c, err := New[int, uint64](Config[int]{Capacity: keys})
	require.NoError(t, err)
	var version, applied [keys]atomic.Uint64
	var fast, slow atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() { // writers: disjoint keys, so applied only grows
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for !stop.Load() {
				k := 2*r.IntN(keys/2) + w
				v := version[k].Add(1)
				if c.shards[c.hash(k)&(numShards-1)].records.Load() == 0 {
					fast.Add(1) // the fast path's first test holds (a sample)
				} else {
					slow.Add(1)
				}
				c.Delete(k)
				applied[k].Store(v)
			}
		})
	}
	var readers sync.WaitGroup
	for id := range 2 {
		readers.Go(func() {
			r := rand.New(rand.NewPCG(uint64(id), 2))
			for range 40_000 {
				k := r.IntN(keys)
				floor := applied[k].Load()
				v, err := c.Get(context.Background(), k, func(context.Context) (uint64, error) {
					return version[k].Load(), nil
				})
				if err != nil || v < floor {
					t.Errorf("key %d: read version %d (err %v) after the invalidation of version %d returned", k, v, err, floor)
					return
				}
			}
		})
	}
	readers.Wait()
	stop.Store(true)
	wg.Wait()
	assert.Positive(t, fast.Load(), "no invalidation found its shard without records")
	assert.Positive(t, slow.Load(), "no invalidation raced a fill record")
	t.Logf("invalidations with no record in their shard: %d, with records: %d", fast.Load(), slow.Load())
}

// TestApplyKeepsNoKey: Apply may be given keys that alias a buffer the
// caller reuses. A key rewritten in place after Apply returned changes
// nothing the cache holds: a fill that the event made lose is still dropped,
// a refilled entry keeps its own key, and other keys are untouched.
func TestApplyKeepsNoKey(t *testing.T) {
	c, err := New[string, int](Config[string]{Capacity: 100})
	require.NoError(t, err)
	buf := []byte("key1")
	alias := unsafe.String(&buf[0], len(buf))

	c.Set("key1", 1)
	c.Set("key2", 2)
	c.Apply(Event[string, int]{Kind: Write, Key: alias, Version: 5, Value: 10, Refill: true})
	copy(buf, "key2")
	v, ok := c.TryGet("key1")
	assert.True(t, ok)
	assert.Equal(t, 10, v, "refilled under its own key")
	v, _ = c.TryGet("key2")
	assert.Equal(t, 2, v)

	copy(buf, "key3")
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = c.Get(context.Background(), "key3", func(context.Context) (int, error) {
			close(started)
			<-release
			return 3, nil
		})
	}()
	<-started
	c.Apply(Event[string, int]{Kind: Write, Key: alias, Version: 6}) // the fill of key3 loses
	copy(buf, "key9")
	close(release)
	<-done
	assert.False(t, c.Contains("key3"), "the fill that lost was not stored")
	assert.Equal(t, uint64(1), c.Stats().DroppedFills)
	assert.Equal(t, 2, c.Len(), "key1 and key2")
}

// TestApplyRunMatchesEach: a stream of events of every kind (invalidations in
// runs of all lengths, refills, checkpoints, unknown kinds, versions out of
// order), seeded, applied in one Apply call leaves the cache exactly as
// applying each event on its own, the way Apply did before it looked runs of
// invalidations up ahead: the same entries, values and counts.
func TestApplyRunMatchesEach(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const keys = 200
	for round := range 50 {
		cfg := Config[int]{Capacity: keys} // no staleness bound: refilled entries are served too
		run, err := New[int, int](cfg)
		require.NoError(t, err)
		each, err := New[int, int](cfg)
		require.NoError(t, err)
		for k := range keys {
			if rng.IntN(2) == 0 {
				run.Set(k, k)
				each.Set(k, k)
			}
		}
		var evs []Event[int, int]
		for v := range rng.IntN(100) + 1 {
			// versions out of order too, so that entries refilled at a newer
			// version survive older invalidations
			e := Event[int, int]{Key: rng.IntN(keys / 4), Version: uint64(rng.IntN(50) + 1)}
			switch r := rng.IntN(20); {
			case r < 12:
				e.Kind = Write
			case r < 16:
				e.Kind = Delete
			case r < 18:
				e.Kind, e.Refill, e.Value = Write, true, -v
			case r < 19:
				e.Kind = Checkpoint
			default:
				e.Kind = EventKind(99) // ignored
			}
			if rng.IntN(4) == 0 {
				e.Version = 0 // unconditional
			}
			evs = append(evs, e)
		}
		run.Apply(evs...)
		for _, e := range evs { // what Apply did before it looked runs up ahead
			switch e.Kind {
			case Write:
				if e.Refill {
					each.refill(e.Key, e.Version, e.Value)
				} else {
					each.invalidate(e.Key, e.Version)
				}
			case Delete:
				each.invalidate(e.Key, e.Version)
			case Checkpoint:
				each.checkpoint(e.Version, e.Cut)
			}
		}
		for k := range keys {
			v1, ok1 := run.TryGet(k)
			v2, ok2 := each.TryGet(k)
			require.Equal(t, ok2, ok1, "round %d key %d", round, k)
			require.Equal(t, v2, v1, "round %d key %d", round, k)
		}
		s1, s2 := run.Stats(), each.Stats()
		require.Equal(t, s2.Invalidations, s1.Invalidations, "round %d", round)
		require.Equal(t, s2.Checkpoints, s1.Checkpoints, "round %d", round)
		require.Equal(t, run.Len(), each.Len(), "round %d", round)
	}
}
