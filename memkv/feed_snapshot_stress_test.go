package memkv_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/memkv"
)

// snapshot returns every live key at v as a map, by pages of limit pairs
// (forward or reverse), checking order and bounds on the way.
func snapshot(t *testing.T, s *memkv.Store, v uint64, limit int, reverse bool) (map[string]string, error) {
	out := map[string]string{}
	var begin, end []byte
	var last []byte
	for {
		kvs, err := s.Scan(ctx, v, begin, end, limit, reverse, nil)
		if err != nil {
			return nil, err
		}
		for i := 0; i < len(kvs); i += 2 {
			k := kvs[i]
			if last != nil {
				if reverse {
					assert.Less(t, string(k), string(last), "reverse order at %d", v)
				} else {
					assert.Greater(t, string(k), string(last), "order at %d", v)
				}
			}
			last = k
			out[string(k)] = string(kvs[i+1])
		}
		if limit <= 0 || len(kvs) < 2*limit {
			return out, nil
		}
		if reverse {
			end = last
		} else {
			begin = append(last, 0)
		}
	}
}

// snapWriter commits random writes over keys shared by every writer: sets,
// sets of a key twice, deletions (of absent keys too), clears across shards,
// write ranges alone, and blind puts and deletes.
func snapWriter(t *testing.T, s *memkv.Store, w, commits int) {
	r := rand.New(rand.NewPCG(uint64(w), 3))
	key := func() []byte { return []byte(fmt.Sprintf("%c%d", 'a'+r.IntN(8), r.IntN(4))) }
	for i := range commits {
		var err error
		switch r.IntN(6) {
		case 0:
			_, err = s.Put(ctx, key(), []byte(fmt.Sprintf("p%d.%d", w, i)))
		case 1:
			_, err = s.Delete(ctx, key())
		default:
			req := &memkv.CommitRequest{ReadVersion: s.ReadVersion()}
			if r.IntN(3) == 0 {
				lo, hi := key(), key()
				if string(lo) > string(hi) {
					lo, hi = hi, lo
				}
				req.Clears = [][]byte{lo, hi}
			}
			if r.IntN(8) == 0 {
				req.WriteRanges = [][]byte{key(), nil}
			}
			for range r.IntN(4) {
				v := []byte(fmt.Sprintf("c%d.%d", w, i))
				if r.IntN(4) == 0 {
					v = nil
				}
				req.Sets = append(req.Sets, key(), v)
			}
			_, err = s.Commit(ctx, req)
		}
		if !assert.NoError(t, err) {
			return
		}
	}
}

// snapReader follows the feed, applying its writes to a map, and at each
// checkpoint compares the map with a snapshot scan at the checkpoint's
// version. It subscribes again after a cut-off. Once stop closes (the
// writers are done) and it has caught up, it emits a checkpoint of its own
// and returns after comparing it: that one is never too old, and reaches it
// whenever it subscribed (a reader cut off under load resubscribed after a
// checkpoint the test emitted once, and could return having compared none).
func snapReader(t *testing.T, s *memkv.Store, id int, stop <-chan struct{}) (checked int) {
	r := rand.New(rand.NewPCG(uint64(id), 5))
	final := false // the reader's own checkpoint after stop was emitted
	for {
		sub := s.Subscribe()
		state, err := snapshot(t, s, sub.Start, 0, false)
		if err != nil {
			sub.Close()
			continue
		}
		last := sub.Start
		for {
			// Whether stop was closed before this TryNext: only then does
			// an empty feed mean the reader has caught up. Asked after it,
			// the writers could finish between the two (the reader
			// descheduled), and the reader took itself for caught up with
			// their last commits still queued, their checkpoints then too
			// old for its snapshot though it had set final.
			stopped := false
			select {
			case <-stop:
				stopped = true
			default:
			}
			e, ok, err := sub.TryNext()
			if err != nil {
				assert.ErrorIs(t, err, memkv.ErrOverflow)
				break
			}
			if !ok {
				switch {
				case !stopped:
					runtime.Gosched()
				case final:
					sub.Close()
					return checked
				default:
					final = true
					s.Checkpoint()
				}
				continue
			}
			if !assert.GreaterOrEqual(t, e.Version, last) {
				sub.Close()
				return checked
			}
			last = e.Version
			if e.Kind == memkv.EventWrite {
				assert.Greater(t, e.Version, sub.Start)
				if e.Deleted {
					delete(state, string(e.Key))
				} else {
					state[string(e.Key)] = string(e.Value)
				}
				continue
			}
			snap, err := snapshot(t, s, e.Version, 1+r.IntN(3), r.IntN(2) == 0)
			if errors.Is(err, memkv.ErrTooOld) && !final {
				continue
			}
			if !assert.NoError(t, err) || !assert.Equal(t, snap, state, "checkpoint %d", e.Version) {
				sub.Close()
				return checked
			}
			checked++
		}
		sub.Close()
	}
}

// TestFeedMatchesSnapshotsAtCheckpoints runs writers over shared keys (with
// clears across shards), full GCs and feed readers at once: at every
// checkpoint, the state a reader built from the feed must equal a paged
// snapshot scan at the checkpoint's version.
func TestFeedMatchesSnapshotsAtCheckpoints(t *testing.T) {
	const writers, commits, readers = 3, 400, 2
	s := newStore(t, memkv.Config{Splits: [][]byte{b("c"), b("e"), b("g")}, HistoryVersions: 64,
		GCStep: 2, CheckpointEvery: 2, FeedBuffer: 32})
	stop := make(chan struct{})
	var rwg, wwg, gwg sync.WaitGroup
	checked := make([]int, readers)
	for id := range readers {
		rwg.Go(func() { checked[id] = snapReader(t, s, id, stop) })
	}
	gcUntil(&gwg, s, stop)
	for w := range writers {
		wwg.Go(func() { snapWriter(t, s, w, commits) })
	}
	wwg.Wait()
	close(stop)
	rwg.Wait()
	gwg.Wait()
	t.Logf("checkpoints checked %v, stats %+v", checked, s.Stats())
	// Each reader compares at least its own final checkpoint: one that
	// compared none would have checked nothing.
	for id, n := range checked {
		assert.Positive(t, n, "reader %d compared no checkpoint with a snapshot", id)
	}
}

// TestCountMatchesScanUnderRangeCommits has writers keep a counter equal to
// the number of keys in a range spread over every shard: each reads the
// range (and the counter) at a version, then inserts a key or clears a
// sub-range, and writes the new count, validated by its read range. Readers
// check at snapshots (paged scans, forward and reverse) that the counter
// matches the keys, so a phantom or a torn clear shows.
func TestCountMatchesScanUnderRangeCommits(t *testing.T) {
	const writers, each = 3, 200
	s := newStore(t, memkv.Config{Splits: [][]byte{b("r/3"), b("r/6"), b("z")}, HistoryVersions: 32, GCStep: 3})
	count := func(v uint64, limit int, reverse bool) (keys, counter int, err error) {
		snap, err := snapshot(t, s, v, limit, reverse)
		if err != nil {
			return 0, 0, err
		}
		for k := range snap {
			if k >= "r/" && k < "r0" {
				keys++
			}
		}
		fmt.Sscan(snap["zcount"], &counter)
		return keys, counter, nil
	}
	stop := make(chan struct{})
	var wwg, rwg, gwg sync.WaitGroup
	gcUntil(&gwg, s, stop)
	rwg.Go(func() {
		r := rand.New(rand.NewPCG(9, 9))
		for {
			select {
			case <-stop:
				return
			default:
			}
			v := s.ReadVersion()
			keys, counter, err := count(v, r.IntN(4), r.IntN(2) == 0)
			if err == nil && !assert.Equal(t, counter, keys, "snapshot at %d", v) {
				return
			}
			runtime.Gosched()
		}
	})
	for w := range writers {
		wwg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for i := 0; i < each; {
				rv := s.ReadVersion()
				kvs, err := s.Scan(ctx, rv, b("r/"), b("r0"), 0, false, nil)
				if err != nil {
					continue
				}
				n := len(kvs) / 2
				req := &memkv.CommitRequest{ReadVersion: rv, ReadRanges: [][]byte{b("r/"), b("r0")}}
				if r.IntN(4) == 0 && n > 0 {
					lo, hi := fmt.Sprintf("r/%d", r.IntN(10)), fmt.Sprintf("r/%d", r.IntN(10))
					lo, hi = min(lo, hi), max(lo, hi)
					req.Clears = [][]byte{b(lo), b(hi)}
					for j := 0; j < len(kvs); j += 2 {
						if k := string(kvs[j]); k >= lo && k < hi {
							n--
						}
					}
				} else {
					k := fmt.Sprintf("r/%d/%d.%d", r.IntN(10), w, i)
					req.Sets = append(req.Sets, b(k), b("x"))
					n++
				}
				req.Sets = append(req.Sets, b("zcount"), b(fmt.Sprint(n)))
				_, err = s.Commit(ctx, req)
				if err == nil {
					i++
					continue
				}
				if !errors.Is(err, memkv.ErrConflict) && !errors.Is(err, memkv.ErrTooOld) {
					t.Error(err)
					return
				}
			}
		})
	}
	wwg.Wait()
	close(stop)
	rwg.Wait()
	gwg.Wait()
	keys, counter, err := count(s.ReadVersion(), 0, false)
	assert.NoError(t, err)
	assert.Equal(t, counter, keys)
	t.Logf("keys %d, stats %+v", keys, s.Stats())
}
