package memkv_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// fev is one expected or received write event, as a comparable value.
type fev struct {
	ver uint64
	key string
	val string
	del bool
}

// segment is what one subscription delivered, from Subscribe to its end.
type segment struct {
	start uint64
	evs   []memkv.Event
	end   error
}

// feedWriter commits random writes to the keys it alone owns, so that it
// knows the events each commit makes: Sets of values, deletions of keys it
// holds, and clears of a range of its own keys.
func feedWriter(t *testing.T, s *memkv.Store, w, commits int, out *[]fev) {
	r := rand.New(rand.NewPCG(uint64(w), 7))
	held := map[string]string{}
	key := func(i int) string { return fmt.Sprintf("w%d/k%02d", w, i) }
	for i := range commits {
		req := &memkv.CommitRequest{ReadVersion: s.ReadVersion()}
		var evs []fev
		next := maps.Clone(held)
		if r.IntN(5) == 0 {
			lo, hi := r.IntN(12), r.IntN(12)
			lo, hi = min(lo, hi), max(lo, hi)
			req.Clears = [][]byte{b(key(lo)), b(key(hi))}
			var ks []string
			for k := range next {
				if k >= key(lo) && k < key(hi) {
					ks = append(ks, k)
				}
			}
			sort.Strings(ks)
			for _, k := range ks {
				evs = append(evs, fev{key: k, del: true})
				delete(next, k)
			}
		}
		for range 1 + r.IntN(4) {
			k := key(r.IntN(12))
			if r.IntN(4) == 0 {
				req.Sets = append(req.Sets, b(k), nil)
				if _, ok := next[k]; ok {
					evs = append(evs, fev{key: k, del: true})
					delete(next, k)
				}
				continue
			}
			v := fmt.Sprintf("%d.%d", w, i)
			req.Sets = append(req.Sets, b(k), b(v))
			evs = append(evs, fev{key: k, val: v})
			next[k] = v
		}
		v, err := s.Commit(ctx, req)
		if !assert.NoError(t, err) {
			return
		}
		held = next
		for j := range evs {
			evs[j].ver = v
		}
		*out = append(*out, evs...)
	}
}

// feedReader subscribes, reads in the style of mode, and subscribes again
// after each end, until stop is closed; it returns every segment.
func feedReader(s *memkv.Store, mode int, stop <-chan struct{}) []segment {
	var segs []segment
	r := rand.New(rand.NewPCG(uint64(mode), 11))
	for {
		select {
		case <-stop:
			return segs
		default:
		}
		sub := s.Subscribe()
		seg := segment{start: sub.Start}
		for n := 0; seg.end == nil; n++ {
			var e memkv.Event
			var err error
			switch {
			case mode == 0 || r.IntN(3) == 0:
				c, cancel := context.WithCancel(ctx)
				go func() {
					select {
					case <-stop:
					case <-c.Done():
					}
					cancel()
				}()
				e, err = sub.Next(c)
				cancel()
				if errors.Is(err, context.Canceled) {
					err = memkv.ErrClosed // stopped
					sub.Close()
				}
			default:
				var ok bool
				e, ok, err = sub.TryNext()
				if err == nil && !ok {
					select {
					case <-stop:
						sub.Close()
						err = memkv.ErrClosed
					default:
						runtime.Gosched()
						continue
					}
				}
			}
			if err != nil {
				seg.end = err
				break
			}
			seg.evs = append(seg.evs, e)
			if mode == 2 && n%50 == 49 {
				sub.Close() // a subscriber that leaves on its own
			}
			if mode == 1 {
				runtime.Gosched() // slow: falls behind
			}
		}
		sub.Close()
		segs = append(segs, seg)
	}
}

// checkSegment checks a subscription's delivery against the writes of the
// whole run, in commit order: a contiguous run of them from its start, each
// checkpoint after every write at or below it, ending only in ErrOverflow or
// ErrClosed.
func checkSegment(t *testing.T, all []fev, seg segment) {
	t.Helper()
	i := sort.Search(len(all), func(i int) bool { return all[i].ver > seg.start })
	lastCk := seg.start
	for _, e := range seg.evs {
		switch e.Kind {
		case memkv.EventWrite:
			got := fev{ver: e.Version, key: string(e.Key), val: string(e.Value), del: e.Deleted}
			if !assert.Less(t, i, len(all), "write past every commit: %+v", got) ||
				!assert.Equal(t, all[i], got, "start %d", seg.start) {
				return
			}
			i++
		case memkv.EventCheckpoint:
			if !assert.GreaterOrEqual(t, e.Version, lastCk) {
				return
			}
			lastCk = e.Version
			if i < len(all) && !assert.Greater(t, all[i].ver, e.Version, "checkpoint %d before write %+v", e.Version, all[i]) {
				return
			}
		default:
			assert.Fail(t, "unknown event kind", "%v", e.Kind)
			return
		}
	}
	assert.True(t, errors.Is(seg.end, memkv.ErrOverflow) || errors.Is(seg.end, memkv.ErrClosed), "end %v", seg.end)
}

// TestFeedStressAgainstWrites runs writers, subscribers of several speeds
// (some cut off and subscribing again, some leaving), checkpoint ticks and
// FeedBuffer changes at once, and checks every subscription's delivery
// against the writes.
func TestFeedStressAgainstWrites(t *testing.T) {
	const writers, commits, readers = 3, 300, 3
	s := newStore(t, memkv.Config{FeedBuffer: 8, CheckpointEvery: 3, Splits: [][]byte{b("w1"), b("w2")}})
	stop := make(chan struct{})
	segs := make([][]segment, readers)
	var rwg, wwg, twg sync.WaitGroup
	for m := range readers {
		rwg.Go(func() { segs[m] = feedReader(s, m, stop) })
	}
	twg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			s.Checkpoint()
			if i%20 == 0 {
				cfg := s.Config()
				cfg.FeedBuffer = 4 + 60*(i/20%2)
				assert.NoError(t, s.SetConfig(cfg))
			}
			runtime.Gosched()
		}
	})
	outs := make([][]fev, writers)
	for w := range writers {
		wwg.Go(func() { feedWriter(t, s, w, commits, &outs[w]) })
	}
	wwg.Wait()
	close(stop)
	rwg.Wait()
	twg.Wait()
	all := slices.Concat(outs...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].ver < all[j].ver })
	require.NotEmpty(t, all)
	n := 0
	for _, ss := range segs {
		for _, seg := range ss {
			checkSegment(t, all, seg)
			n += len(seg.evs)
		}
	}
	assert.Positive(t, n)
	assert.Zero(t, s.Stats().Subscribers)
}
