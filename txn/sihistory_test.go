package txn_test

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// A model-checking test of the isolation levels under concurrency: workers
// run random transactions (point and range reads, puts, deletes, range
// deletes, write-conflict ranges, savepoints rolled back or released, some
// refused by a small memory budget) through txn on memkv and
// record every read with what it returned; the history is then checked
// offline against a replay of the committed transactions in commit-version
// order:
//
//   - every read of every transaction (committed or not) equals the state at
//     its read version merged with its own writes, with savepoints
//     honoured: a consistent snapshot, no phantom, no dirty or rolled-back
//     value; under ReadCommitted, each read instead equals the state at some
//     version no older than the previous read's;
//   - under Snapshot, first committer wins: two committed transactions whose
//     lifetimes (read version, commit version] overlap write (or claim) no key in
//     common (a deletion of a key absent at commit is no write, as memkv
//     documents);
//   - under Serializable, every committed writer's reads also equal the
//     state just before its commit version (the serial order is the commit
//     order), which rules out write skew;
//   - the store's final state is the replay's.

// siUniverse is the key space, sorted: the empty key, keys one 0x00 apart,
// and 0xff keys, around the store's splits.
var siUniverse = []string{"", "\x00", "a", "a\x00", "a\x00\x00", "ab", "b", "b\x00", "k", "\xff", "\xff\xff"}

const siKeys = 11 // len(siUniverse)

// siKey returns key i, and for i == siKeys a bound past every key.
func siKey(i int) string {
	if i == siKeys {
		return "\xff\xff\x00"
	}
	return siUniverse[i]
}

type siOp struct {
	kind    byte // g get, s scan, p put, d delete, c clear, w write-conflict range, S savepoint, R rollback to, L release
	key     string
	end     string
	limit   int
	reverse bool
	val     string
	sp      int      // savepoint index (R, L)
	got     []string // get: the value if found; scan: flattened pairs
	found   bool
}

type siTx struct {
	id      int
	rv, cv  uint64
	outcome byte // 'c' committed, 'a' aborted
	ops     []siOp
}

// siView is a transaction's view in the model: the snapshot plus its own
// buffered writes and clears.
type siView struct {
	buf    map[string]*string // nil: deleted
	clears [][2]string        // [begin, end), siNoEnd for no upper bound
	claims [][2]string        // write-conflict ranges, as clears
}

func (v siView) clone() siView {
	return siView{buf: maps.Clone(v.buf), clears: slices.Clone(v.clears), claims: slices.Clone(v.claims)}
}

// siNoEnd stands for a nil end in the model: it is after every key.
const siNoEnd = "\xff\xff\xff\xff"

func inRange(k, lo, hi string) bool { return k >= lo && k < hi }

func (v siView) get(state map[string]string, k string) (string, bool) {
	if p, ok := v.buf[k]; ok {
		if p == nil {
			return "", false
		}
		return *p, true
	}
	for _, c := range v.clears {
		if inRange(k, c[0], c[1]) {
			return "", false
		}
	}
	x, ok := state[k]
	return x, ok
}

// apply returns state with the view's writes committed: clears, then sets.
func (v siView) apply(state map[string]string) map[string]string {
	out := maps.Clone(state)
	for k := range out {
		for _, c := range v.clears {
			if inRange(k, c[0], c[1]) {
				delete(out, k)
			}
		}
	}
	for k, p := range v.buf {
		if p == nil {
			delete(out, k)
		} else {
			out[k] = *p
		}
	}
	return out
}

// writeSet returns the keys the view writes when committed on state: keys
// in its clears and write-conflict ranges (all of the key space, present or
// not) and its buffered keys, except deletions of keys absent from state.
func (v siView) writeSet(state map[string]string) map[string]bool {
	ws := map[string]bool{}
	for i := range siKeys {
		for _, c := range slices.Concat(v.clears, v.claims) {
			if inRange(siKey(i), c[0], c[1]) {
				ws[siKey(i)] = true
			}
		}
	}
	for k, p := range v.buf {
		if _, present := state[k]; p != nil || present {
			ws[k] = true
		}
	}
	return ws
}

// readMatches reports whether read o, made through view v, matches state,
// and describes the mismatch.
func readMatches(v siView, state map[string]string, o siOp) (bool, string) {
	if o.kind == 'g' {
		x, ok := v.get(state, o.key)
		if ok != o.found || (ok && x != o.got[0]) {
			return false, fmt.Sprintf("get %q: saw %q %v, model %q %v", o.key, o.got, o.found, x, ok)
		}
		return true, ""
	}
	var want []string
	for i := range siKeys {
		k := siKey(i)
		if !inRange(k, o.key, o.end) {
			continue
		}
		if x, ok := v.get(state, k); ok {
			want = append(want, k, x)
		}
	}
	if o.reverse {
		var rev []string
		for i := len(want) - 2; i >= 0; i -= 2 {
			rev = append(rev, want[i], want[i+1])
		}
		want = rev
	}
	if o.limit > 0 && len(want) > 2*o.limit {
		want = want[:2*o.limit]
	}
	if !slices.Equal(want, o.got) {
		return false, fmt.Sprintf("scan [%q,%q) limit %d rev %v: saw %q, model %q", o.key, o.end, o.limit, o.reverse, o.got, want)
	}
	return true, ""
}

// replayOps runs h's operations on the model and returns the first read
// that differs from what the transaction saw ("" if none), and the final
// view (whatever the reads). Reads are checked against states[at]; with
// latest set (ReadCommitted), each read must match some state at or after
// the previous read's, from states[at] on.
func replayOps(h *siTx, states []map[string]string, at uint64, latest bool) (msg string, v siView) {
	v = siView{buf: map[string]*string{}}
	var sps []siView
	for j, o := range h.ops {
		switch o.kind {
		case 'g', 's':
			ok, why := readMatches(v, states[at], o)
			for latest && !ok && at+1 < uint64(len(states)) {
				at++
				ok, _ = readMatches(v, states[at], o)
			}
			if !ok {
				msg = cmp.Or(msg, fmt.Sprintf("tx %d op %d %s", h.id, j, why))
			}
		case 'p':
			x := o.val
			v.buf[o.key] = &x
		case 'd':
			v.buf[o.key] = nil
		case 'c':
			v.clears = append(v.clears, [2]string{o.key, o.end})
			for k := range v.buf {
				if inRange(k, o.key, o.end) {
					v.buf[k] = nil
				}
			}
		case 'w':
			v.claims = append(v.claims, [2]string{o.key, o.end})
		case 'S':
			sps = append(sps, v.clone())
		case 'R':
			v = sps[o.sp].clone()
			sps = sps[:o.sp+1]
		case 'L':
			sps = sps[:o.sp]
		}
	}
	return msg, v
}

// runSIWorker runs n random transactions at iso and returns their history.
func runSIWorker(t *testing.T, s *memkv.Store, opt txn.Options, w, n int) []*siTx {
	r := rand.New(rand.NewPCG(uint64(w), 14))
	var hist []*siTx
	for i := range n {
		h := &siTx{id: w*100_000 + i}
		hist = append(hist, h)
		tx, err := txn.Begin(s, opt)
		require.NoError(t, err)
		h.rv = tx.ReadVersion()
		var sps []txn.Savepoint
		bounds := func() (string, string) {
			lo, hi := siKey(r.IntN(siKeys)), siKey(r.IntN(siKeys+1))
			if lo > hi {
				lo, hi = hi, lo
			}
			return lo, hi
		}
		h.outcome = 'c'
		for j := range 1 + r.IntN(8) {
			runtime.Gosched()
			var o siOp
			var err error
			switch p := r.IntN(100); {
			case p < 25:
				o = siOp{kind: 'g', key: siKey(r.IntN(siKeys))}
				var v []byte
				v, o.found, err = tx.Get(ctx, b(o.key))
				if o.found {
					o.got = []string{string(v)}
				}
			case p < 40:
				o = siOp{kind: 's', limit: r.IntN(4), reverse: r.IntN(2) == 0}
				o.key, o.end = bounds()
				var end []byte
				if r.IntN(4) == 0 {
					o.end = siNoEnd
				} else {
					end = b(o.end)
				}
				var kvs []txn.KV
				kvs, err = tx.GetRange(ctx, b(o.key), end, o.limit, o.reverse)
				for _, kv := range kvs {
					o.got = append(o.got, string(kv.Key), string(kv.Value))
				}
			case p < 65:
				o = siOp{kind: 'p', key: siKey(r.IntN(siKeys)), val: strconv.Itoa(h.id) + "." + strconv.Itoa(j)}
				err = tx.Put(b(o.key), b(o.val))
			case p < 75:
				o = siOp{kind: 'd', key: siKey(r.IntN(siKeys))}
				err = tx.Delete(b(o.key))
			case p < 82:
				o = siOp{kind: 'c'}
				if p < 78 {
					o.kind = 'w'
				}
				o.key, o.end = bounds()
				var end []byte
				if r.IntN(4) == 0 {
					o.end = siNoEnd
				} else {
					end = b(o.end)
				}
				if end != nil && o.end <= o.key {
					continue // an empty range deletes nothing
				}
				if o.kind == 'c' {
					err = tx.DeleteRange(b(o.key), end)
				} else {
					err = tx.AddWriteConflictRange(b(o.key), end)
				}
			case p < 90:
				o = siOp{kind: 'S'}
				var sp txn.Savepoint
				if sp, err = tx.Savepoint(); err == nil {
					sps = append(sps, sp) // not a refused one's zero Savepoint
				}
			case len(sps) == 0:
				continue
			case p < 97:
				o = siOp{kind: 'R', sp: r.IntN(len(sps))}
				err = tx.RollbackTo(sps[o.sp])
				sps = sps[:o.sp+1]
			default:
				o = siOp{kind: 'L', sp: r.IntN(len(sps))}
				err = tx.Release(sps[o.sp])
				sps = sps[:o.sp]
			}
			if errors.Is(err, txn.ErrTooLarge) {
				continue // refused: the transaction stays as it was
			}
			if err != nil {
				require.ErrorIs(t, err, txn.ErrTooOld)
				h.outcome = 'a'
				break
			}
			h.ops = append(h.ops, o)
		}
		if h.outcome == 'c' {
			v, err := tx.Commit(ctx)
			if err != nil {
				require.True(t, errors.Is(err, txn.ErrConflict) || errors.Is(err, txn.ErrTooOld), "%v", err)
				h.outcome = 'a'
			}
			h.cv = v
		}
		tx.Rollback()
	}
	return hist
}

// checkSIHistory returns the violations of hist at iso, and the store's
// final state according to the replay.
func checkSIHistory(hist []*siTx, iso txn.Isolation) ([]string, map[string]string) {
	var bad []string
	// Replay the committed writers in commit order.
	var writers []*siTx
	for _, h := range hist {
		if h.outcome != 'c' {
			continue
		}
		if _, v := replayOps(h, []map[string]string{{}}, 0, false); len(v.buf) > 0 || len(v.clears) > 0 || len(v.claims) > 0 {
			writers = append(writers, h)
		}
	}
	slices.SortFunc(writers, func(a, b *siTx) int { return int(a.cv) - int(b.cv) })
	states := []map[string]string{{}}
	views := make([]siView, len(writers))
	for i, h := range writers {
		if h.cv != uint64(i+1) {
			bad = append(bad, fmt.Sprintf("tx %d committed at %d, want %d", h.id, h.cv, i+1))

			return bad, nil
		}
		_, views[i] = replayOps(h, states, uint64(i), false)
		states = append(states, views[i].apply(states[i]))
	}
	for _, h := range hist {
		if h.rv >= uint64(len(states)) {
			bad = append(bad, fmt.Sprintf("tx %d read at %d, past the last commit %d", h.id, h.rv, len(states)-1))
			continue
		}
		if msg, _ := replayOps(h, states, h.rv, iso == txn.ReadCommitted); msg != "" {
			bad = append(bad, "snapshot: "+msg)
		}
	}
	for i, h := range writers {
		if iso == txn.Serializable {
			if msg, _ := replayOps(h, states, h.cv-1, false); msg != "" {
				bad = append(bad, "serial order: "+msg)
			}
		}
		if iso != txn.Snapshot {
			continue // first committer wins is Snapshot's rule; Serializable lets blind writes pass
		}
		ws := views[i].writeSet(states[h.cv-1])
		for j := i + 1; j < len(writers) && writers[j].rv < h.cv; j++ {
			other := views[j].writeSet(states[writers[j].cv-1])
			for k := range ws {
				if other[k] {
					bad = append(bad, fmt.Sprintf("first committer wins: tx %d (%d, %d] and tx %d (%d, %d] both wrote %s",
						h.id, h.rv, h.cv, writers[j].id, writers[j].rv, writers[j].cv, k))
				}
			}
		}
	}
	return bad, states[len(states)-1]
}

func TestConcurrentIsolationHistories(t *testing.T) {
	for _, tc := range []struct {
		name string
		iso  txn.Isolation
		cfg  memkv.Config
		gc   bool // run full GCs beside the workers
		mem  int  // the transactions' memory budget
	}{
		{"snapshot", txn.Snapshot, memkv.Config{Splits: [][]byte{b("a\x00"), b("b")}}, false, 0},
		{"snapshot/short-window", txn.Snapshot, memkv.Config{Splits: [][]byte{b("a\x00"), b("b")}, HistoryVersions: 8, GCStep: 4}, true, 0},
		{"read-committed", txn.ReadCommitted, memkv.Config{Splits: [][]byte{b("a\x00"), b("b")}}, false, 0},
		{"serializable", txn.Serializable, memkv.Config{Splits: [][]byte{b("a\x00\x00"), b("\xff")}}, false, 0},
		{"serializable/small-budget", txn.Serializable, memkv.Config{Splits: [][]byte{b("a\x00\x00"), b("\xff")}}, false, 260},
		{"snapshot/small-budget", txn.Snapshot, memkv.Config{Splits: [][]byte{b("a\x00\x00"), b("\xff")}}, false, 260},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const workers, each = 4, 300
			s := newStore(t, tc.cfg)
			hists := make([][]*siTx, workers)
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() { hists[w] = runSIWorker(t, s, txn.Options{Isolation: tc.iso, MemoryBudget: tc.mem}, w, each) })
			}
			if tc.gc {
				for range 200 {
					s.GC()
					runtime.Gosched()
				}
			}
			wg.Wait()
			hist := slices.Concat(hists...)
			bad, final := checkSIHistory(hist, tc.iso)
			if len(bad) > 10 {
				bad = bad[:10]
			}
			require.Empty(t, bad, strings.Join(bad, "\n"))
			got := map[string]string{}
			kvs, err := s.Scan(ctx, s.ReadVersion(), nil, nil, 0, false, nil)
			require.NoError(t, err)
			for i := 0; i < len(kvs); i += 2 {
				got[string(kvs[i])] = string(kvs[i+1])
			}
			require.Equal(t, final, got)
			committed := 0
			for _, h := range hist {
				if h.outcome == 'c' {
					committed++
				}
			}
			st := s.Stats()
			t.Logf("%d transactions, %d committed, final version %d, %d too old, %d freed by GC",
				len(hist), committed, s.ReadVersion(), st.TooOld, st.GCFreed)
		})
	}
}

// Run under Snapshot with lost replies and injected failures, from
// concurrent workers: each Run increments a counter once, under its own
// idempotency key. Every Run succeeds, at a version of its own, and the
// counter ends at the number of Runs: no attempt applied twice, none lost.
func TestConcurrentRunsApplyOnce(t *testing.T) {
	var drops, fails atomic.Uint64
	s := newStore(t, memkv.Config{Faults: memkv.Faults{
		DropReply:        func(*memkv.CommitRequest) bool { return drops.Add(1)%3 == 0 },
		FailBeforeCommit: func(*memkv.CommitRequest) bool { return fails.Add(1)%5 == 0 },
	}})
	const workers, each = 4, 100
	pol := txn.RetryPolicy{MaxAttempts: 1000, BaseBackoff: time.Microsecond, MaxBackoff: 10 * time.Microsecond, MaxElapsed: time.Hour}
	var mu sync.Mutex
	versions := map[uint64]bool{}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				opt := txn.Options{Isolation: txn.Snapshot, IdempotencyKey: b(fmt.Sprintf("w%d.%d", w, i))}
				v, err := txn.Run(ctx, s, opt, pol, func(tx *txn.Tx) error {
					runtime.Gosched()
					x, _, err := tx.Get(ctx, b("n"))
					if err != nil {
						return err
					}
					n, _ := strconv.Atoi(string(x))
					return tx.Put(b("n"), strconv.AppendInt(nil, int64(n+1), 10))
				})
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				assert.False(t, versions[v], "version %d returned twice", v)
				versions[v] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	x, _, err := s.Get(ctx, s.ReadVersion(), b("n"))
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(workers*each), string(x))
	st := s.Stats()
	assert.Positive(t, st.DroppedReplies)
	assert.Positive(t, st.AlreadyCommitted)
	t.Logf("%d commits, %d conflicts, %d dropped replies, %d deduplicated, %d injected",
		st.Commits, st.Conflicts, st.DroppedReplies, st.AlreadyCommitted, st.Injected)
}
