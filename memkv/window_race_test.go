package memkv_test

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// windowKeys is the keyspace of the window-race tests: a single writer's
// i-th commit (version i+1) writes key i%windowKeys, deleting it on every
// third write of that key, so the state at any version is known.
const windowKeys = 6

func windowKey(k int) string { return fmt.Sprintf("k%d", k) }

// windowState returns what every key holds at version v (absent keys left
// out), for the writer of TestReadsWhileWindowShrinks.
func windowState(v uint64) map[string]string {
	m := map[string]string{}
	for i := uint64(0); i < v; i++ {
		k := windowKey(int(i % windowKeys))
		if (i/windowKeys)%3 == 2 {
			delete(m, k)
		} else {
			m[k] = fmt.Sprint(i)
		}
	}
	return m
}

// TestReadsWhileWindowShrinks reads at versions taken from ReadVersion while
// one writer commits, full GCs run and SetConfig swaps the window between a
// long one and a HistoryBytes bound that moves the horizon up to the newest
// version (which TestConcurrentAgainstModel, with a fixed window, never
// does): every point read and every scan across the shards must return
// exactly the state at its version, or ErrTooOld, never a part of it.
func TestReadsWhileWindowShrinks(t *testing.T) {
	const commits, readers = 1500, 2
	long := memkv.Config{Splits: [][]byte{b("k2"), b("k4")}, HistoryVersions: 1 << 10}
	short := long
	short.HistoryBytes = 1 // every commit moves the horizon to itself
	s := newStore(t, long)
	states := make([]map[string]string, commits+1)
	for v := range states {
		states[v] = windowState(uint64(v))
	}
	var wg, gcwg sync.WaitGroup
	done := make(chan struct{})
	gcUntil(&gcwg, s, done)
	var writing atomic.Bool // false once the writer has returned, early on an error too
	writing.Store(true)
	wg.Go(func() {
		defer writing.Store(false)
		for i := range commits {
			k := b(windowKey(i % windowKeys))
			var err error
			if (i/windowKeys)%3 == 2 {
				_, err = s.Delete(ctx, k)
			} else {
				_, err = s.Put(ctx, k, b(fmt.Sprint(i)))
			}
			if !assert.NoError(t, err) {
				return
			}
			if i%7 == 0 {
				cfg := long
				if i%14 == 0 {
					cfg = short
				}
				assert.NoError(t, s.SetConfig(cfg))
			}
		}
	})
	var tooOld, ok [readers]int
	for r := range readers {
		wg.Go(func() {
			for s.ReadVersion() < commits && writing.Load() {
				rv := s.ReadVersion()
				want := states[rv]
				runtime.Gosched()
				kvs, err := s.Scan(ctx, rv, nil, nil, 0, rv%2 == 0, nil)
				if errors.Is(err, memkv.ErrTooOld) {
					assert.Empty(t, kvs, "a scan too old returns nothing")
					tooOld[r]++
					continue
				}
				if !assert.NoError(t, err) {
					return
				}
				got := map[string]string{}
				for j := 0; j < len(kvs); j += 2 {
					got[string(kvs[j])] = string(kvs[j+1])
				}
				if !assert.Equal(t, want, got, "scan at %d", rv) {
					return
				}
				for k := range windowKeys {
					v, has, err := s.Get(ctx, rv, b(windowKey(k)))
					if errors.Is(err, memkv.ErrTooOld) {
						tooOld[r]++
						break
					}
					w, wantHas := want[windowKey(k)]
					if !assert.NoError(t, err) || !assert.Equal(t, wantHas, has, "get %s at %d", windowKey(k), rv) ||
						!assert.Equal(t, w, string(v), "get %s at %d", windowKey(k), rv) {
						return
					}
					ok[r]++
				}
			}
		})
	}
	wg.Wait()
	close(done)
	gcwg.Wait()
	t.Logf("reads ok %v, too old %v", ok, tooOld)
}

// TestSubscribeWhileCommitting subscribes at random points while writers
// commit: each subscription must deliver exactly the writes after its Start,
// in commit order (the first one right after Start: no gap, no duplicate),
// as a subscription taken before any commit saw them.
func TestSubscribeWhileCommitting(t *testing.T) {
	const writers, each, late = 2, 300, 40
	s := newStore(t, memkv.Config{Splits: [][]byte{b("k3")}, FeedBuffer: 1 << 16, CheckpointEvery: 5})
	all := s.Subscribe()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				req := &memkv.CommitRequest{Sets: [][]byte{b(windowKey((w + i) % windowKeys)), b(fmt.Sprint(w, i))}}
				if i%5 == 0 {
					req.Sets = append(req.Sets, b(windowKey((w+i+1)%windowKeys)), nil)
				}
				_, err := s.Commit(ctx, req)
				if !assert.NoError(t, err) {
					return
				}
			}
		})
	}
	subs := make([]*memkv.Subscription, late)
	wg.Go(func() {
		for i := range subs {
			runtime.Gosched()
			subs[i] = s.Subscribe()
		}
	})
	wg.Wait()
	final := s.Checkpoint()
	drain := func(sub *memkv.Subscription) []string {
		var out []string
		for {
			e, err := sub.Next(ctx)
			require.NoError(t, err)
			if e.Kind == memkv.EventCheckpoint {
				if e.Version == final {
					return out
				}
				continue
			}
			out = append(out, fmt.Sprintf("%d %s=%q %v", e.Version, e.Key, e.Value, e.Deleted))
		}
	}
	ref := drain(all)
	versions := make([]uint64, len(ref))
	for i, e := range ref {
		_, err := fmt.Sscan(e, &versions[i])
		require.NoError(t, err)
	}
	require.True(t, slices.IsSorted(versions))
	for _, sub := range subs {
		from, _ := slices.BinarySearch(versions, sub.Start+1)
		// A subscription started after the last write gets none: compare
		// element by element, not a nil slice against an empty one.
		got := drain(sub)
		require.Equal(t, len(ref[from:]), len(got), "subscription started at %d", sub.Start)
		require.True(t, slices.Equal(ref[from:], got), "subscription started at %d: %v", sub.Start, got)
	}
}
