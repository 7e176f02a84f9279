package memkv_test

import (
	"bytes"
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

type lread struct {
	key     string // point read, or range begin
	end     string // range end (unless noEnd)
	isRange bool
	limit   int
	reverse bool
	got     []string // k=v pairs
	noEnd   bool     // the range has no upper bound
}

type lcommit struct {
	rv      uint64
	reads   []lread
	req     *memkv.CommitRequest
	cv      uint64
	outcome byte // 'c' ok, 'x' conflict, 'o' too old
}

// TestConcurrentAgainstModel runs read-then-commit clients, full GCs and a
// change-feed subscriber concurrently over a short history and several
// shards, then replays the commits in version order and checks every read,
// every validation and the feed against the model.
func TestConcurrentAgainstModel(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { concurrentAgainstModel(t, seed) })
	}
}

func concurrentAgainstModel(t *testing.T, seed uint64) {
	const workers, each = 3, 400
	s := newStore(t, memkv.Config{Splits: [][]byte{b("c"), b("f")}, HistoryVersions: 6, GCStep: 1,
		CheckpointEvery: 3, FeedBuffer: 1 << 20})
	sub := s.Subscribe()
	keys := []string{"a", "b", "b\x00", "c", "d", "e", "e\xff", "f", "g"}
	var mu sync.Mutex
	var log []*lcommit
	var wg sync.WaitGroup
	done := make(chan struct{})
	var gcwg sync.WaitGroup
	gcUntil(&gcwg, s, done)
	for w := range workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(seed, uint64(w)))
			key := func() string { return keys[r.IntN(len(keys))] }
			for i := range each {
				c := &lcommit{rv: s.ReadVersion()}
				req := &memkv.CommitRequest{ReadVersion: c.rv}
				tooOld := false
				for range r.IntN(3) {
					runtime.Gosched()
					if r.IntN(2) == 0 {
						k := key()
						v, ok, err := s.Get(ctx, c.rv, b(k))
						if errors.Is(err, memkv.ErrTooOld) {
							tooOld = true
							break
						}
						if !assert.NoError(t, err) {
							return
						}
						rd := lread{key: k}
						if ok {
							rd.got = []string{k + "=" + string(v)}
						}
						c.reads = append(c.reads, rd)
						req.ReadKeys = append(req.ReadKeys, b(k))
					} else {
						lo, hi := key(), key()
						if lo > hi {
							lo, hi = hi, lo
						}
						rd := lread{key: lo, end: hi, isRange: true, limit: r.IntN(3), reverse: r.IntN(2) == 0, noEnd: r.IntN(4) == 0}
						var end []byte
						if !rd.noEnd {
							end = b(hi)
						}
						kvs, err := s.Scan(ctx, c.rv, b(lo), end, rd.limit, rd.reverse, nil)
						if errors.Is(err, memkv.ErrTooOld) {
							tooOld = true
							break
						}
						if !assert.NoError(t, err) {
							return
						}
						for j := 0; j < len(kvs); j += 2 {
							rd.got = append(rd.got, string(kvs[j])+"="+string(kvs[j+1]))
						}
						c.reads = append(c.reads, rd)
						rb, re := b(lo), end
						if rd.limit > 0 && len(kvs)/2 == rd.limit {
							last := kvs[len(kvs)-2]
							if rd.reverse {
								rb = bytes.Clone(last)
							} else {
								re = append(bytes.Clone(last), 0)
							}
						}
						req.ReadRanges = append(req.ReadRanges, rb, re)
					}
				}
				if tooOld {
					continue
				}
				for range 1 + r.IntN(3) {
					switch p := r.IntN(10); {
					case p < 5:
						req.Sets = append(req.Sets, b(key()), b(fmt.Sprintf("%d.%d", w, i)))
					case p < 7:
						req.Sets = append(req.Sets, b(key()), nil)
					case p < 9:
						lo, hi := key(), key()
						if lo > hi {
							lo, hi = hi, lo
						}
						var e []byte
						if r.IntN(4) != 0 {
							e = b(hi)
						}
						req.Clears = append(req.Clears, b(lo), e)
					default:
						lo, hi := key(), key()
						if lo > hi {
							lo, hi = hi, lo
						}
						req.WriteRanges = append(req.WriteRanges, b(lo), b(hi))
					}
				}
				c.req = req
				runtime.Gosched()
				v, err := s.Commit(ctx, req)
				switch {
				case err == nil:
					c.outcome, c.cv = 'c', v
				case errors.Is(err, memkv.ErrConflict):
					c.outcome = 'x'
				case errors.Is(err, memkv.ErrTooOld):
					c.outcome = 'o'
				default:
					t.Error(err)
					return
				}
				mu.Lock()
				log = append(log, c)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(done)
	gcwg.Wait()

	// Replay.
	var ok []*lcommit
	for _, c := range log {
		if c.outcome == 'c' {
			ok = append(ok, c)
		}
	}
	sort.Slice(ok, func(i, j int) bool { return ok[i].cv < ok[j].cv })
	states := []map[string]string{{}}
	type touch struct {
		b, e  string
		noEnd bool
	}
	touches := [][]touch{nil}
	var wantEvents [][]string
	wantEvents = append(wantEvents, nil)
	for i, c := range ok {
		require.Equal(t, uint64(i+1), c.cv, "commit versions are dense")
		m := maps.Clone(states[i])
		var tc []touch
		var evs []string
		cl := c.req.Clears
		for j := 0; j < len(cl); j += 2 {
			tc = append(tc, touch{string(cl[j]), string(cl[j+1]), cl[j+1] == nil})
			for _, k := range slices.Sorted(maps.Keys(m)) {
				if k >= string(cl[j]) && (cl[j+1] == nil || k < string(cl[j+1])) {
					delete(m, k)
					evs = append(evs, fmt.Sprintf("%d del %s", c.cv, k))
				}
			}
		}
		wr := c.req.WriteRanges
		for j := 0; j < len(wr); j += 2 {
			tc = append(tc, touch{string(wr[j]), string(wr[j+1]), false})
		}
		st := c.req.Sets
		for j := 0; j < len(st); j += 2 {
			k := string(st[j])
			if st[j+1] == nil {
				if _, had := m[k]; had {
					delete(m, k)
					tc = append(tc, touch{k, k + "\x00", false})
					evs = append(evs, fmt.Sprintf("%d del %s", c.cv, k))
				}
				continue
			}
			m[k] = string(st[j+1])
			tc = append(tc, touch{k, k + "\x00", false})
			evs = append(evs, fmt.Sprintf("%d set %s=%s", c.cv, k, st[j+1]))
		}
		states = append(states, m)
		touches = append(touches, tc)
		wantEvents = append(wantEvents, evs)
	}
	readResult := func(m map[string]string, rd lread) []string {
		if !rd.isRange {
			if v, has := m[rd.key]; has {
				return []string{rd.key + "=" + v}
			}
			return nil
		}
		var out []string
		ks := slices.Sorted(maps.Keys(m))
		if rd.reverse {
			slices.Reverse(ks)
		}
		for _, k := range ks {
			if k >= rd.key && (rd.noEnd || k < rd.end) {
				out = append(out, k+"="+m[k])
			}
		}
		if rd.limit > 0 && len(out) > rd.limit {
			out = out[:rd.limit]
		}
		return out
	}
	overlap := func(rb, re []byte, x touch) bool {
		tb, te := []byte(x.b), []byte(x.e)
		if x.noEnd {
			te = nil
		}
		return (te == nil || bytes.Compare(rb, te) < 0) && (re == nil || bytes.Compare(tb, re) < 0) &&
			(re == nil || bytes.Compare(rb, re) < 0) && (te == nil || bytes.Compare(tb, te) < 0)
	}
	final := uint64(len(ok))
	for _, c := range log {
		for _, rd := range c.reads {
			require.Equal(t, readResult(states[c.rv], rd), rd.got, "read %+v at %d", rd, c.rv)
		}
		upto := final
		if c.outcome == 'c' {
			upto = c.cv - 1
		}
		conflict := false
		for v := c.rv + 1; v <= upto; v++ {
			for _, x := range touches[v] {
				for _, k := range c.req.ReadKeys {
					conflict = conflict || overlap(k, append(bytes.Clone(k), 0), x)
				}
				rr := c.req.ReadRanges
				for j := 0; j < len(rr); j += 2 {
					conflict = conflict || overlap(rr[j], rr[j+1], x)
				}
			}
		}
		switch c.outcome {
		case 'c':
			require.False(t, conflict, "commit at %d with read version %d missed a conflicting write", c.cv, c.rv)
		case 'x':
			require.True(t, conflict, "conflict reported with no conflicting write after %d", c.rv)
		}
	}
	// The feed.
	var got []string
	delivered := uint64(0)
	for {
		e, more, err := sub.TryNext()
		require.NoError(t, err)
		if !more {
			break
		}
		switch e.Kind {
		case memkv.EventWrite:
			require.GreaterOrEqual(t, e.Version, delivered)
			delivered = e.Version
			if e.Deleted {
				got = append(got, fmt.Sprintf("%d del %s", e.Version, e.Key))
			} else {
				got = append(got, fmt.Sprintf("%d set %s=%s", e.Version, e.Key, e.Value))
			}
		case memkv.EventCheckpoint:
			var want []string
			for v := uint64(1); v <= e.Version; v++ {
				want = append(want, wantEvents[v]...)
			}
			require.Equal(t, want, got, "checkpoint at %d", e.Version)
		}
	}
	var want []string
	for _, evs := range wantEvents {
		want = append(want, evs...)
	}
	require.Equal(t, want, got)
	// Final state through a full scan at the newest version.
	kvs, err := s.Scan(ctx, s.ReadVersion(), nil, nil, 0, false, nil)
	require.NoError(t, err)
	var fin []string
	for j := 0; j < len(kvs); j += 2 {
		fin = append(fin, string(kvs[j])+"="+string(kvs[j+1]))
	}
	require.Equal(t, readResult(states[final], lread{isRange: true, noEnd: true}), fin)
	t.Logf("%d attempts, %d commits, stats %+v", len(log), len(ok), s.Stats())
}
