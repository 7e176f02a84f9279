package txn_test

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// A history records what each transaction of a randomized workload did and
// saw, and how it ended. Values are list-append style: an append reads the
// key's list ("3,17") and writes it back with a value unique in the whole
// run, so every committed write can be traced to its transaction.

type hop struct {
	kind    byte // 'g' get, 'a' append, 's' scan, 'd' delete, 'c' clear
	key     string
	end     string
	limit   int
	reverse bool
	val     int    // appended value
	got     string // what a get, append or scan read
}

type htx struct {
	id       int
	ops      []hop
	outcome  byte // 'c' committed, 'a' aborted, 'u' unknown
	version  uint64
	readOnly bool
}

func (h *htx) writes() bool {
	for _, o := range h.ops {
		if o.kind == 'a' || o.kind == 'd' || o.kind == 'c' {
			return true
		}
	}
	return false
}

// genOps draws a transaction of 1 to 4 operations over keys k0..k7. A
// transaction that writes ends with an append, so that its commit is
// traceable in the change feed.
func genOps(r *rand.Rand, nextVal *int, deletes bool) []hop {
	key := func() string { return "k" + strconv.Itoa(r.IntN(8)) }
	var ops []hop
	appends, dels := 0, 0
	for range 1 + r.IntN(4) {
		var o hop
		switch p := r.IntN(100); {
		case p < 30:
			o = hop{kind: 'g', key: key()}
		case p < 65:
			*nextVal++
			o = hop{kind: 'a', key: key(), val: *nextVal}
			appends++
		case p < 85 || !deletes:
			lo, hi := key(), key()
			if lo > hi {
				lo, hi = hi, lo
			}
			o = hop{kind: 's', key: lo, end: hi + "\x00", limit: r.IntN(4), reverse: r.IntN(2) == 0}
		case p < 93:
			o = hop{kind: 'd', key: key()}
			dels++
		default:
			lo, hi := key(), key()
			if lo > hi {
				lo, hi = hi, lo
			}
			o = hop{kind: 'c', key: lo, end: hi}
			dels++
		}
		ops = append(ops, o)
	}
	if (dels > 0 || appends > 0) && ops[len(ops)-1].kind != 'a' {
		*nextVal++
		ops = append(ops, hop{kind: 'a', key: key(), val: *nextVal})
	}
	return ops
}

// kvAPI is what an operation needs: a transaction or the replay model.
type kvAPI interface {
	get(k string) (string, bool, error)
	scan(lo, hi string, limit int, reverse bool) ([]string, error)
	put(k, v string) error
	del(k string) error
	clear(lo, hi string) error
}

// execOp runs o and returns what it read.
func execOp(api kvAPI, o hop) (string, error) {
	switch o.kind {
	case 'g', 'a':
		v, ok, err := api.get(o.key)
		if err != nil {
			return "", err
		}
		got := v
		if !ok {
			got = "<none>"
		}
		if o.kind == 'a' {
			if v != "" {
				v += ","
			}
			err = api.put(o.key, v+strconv.Itoa(o.val))
		}
		return got, err
	case 's':
		kvs, err := api.scan(o.key, o.end, o.limit, o.reverse)
		return strings.Join(kvs, ";"), err
	case 'd':
		return "", api.del(o.key)
	case 'c':
		return "", api.clear(o.key, o.end)
	}
	panic("bad op")
}

// txAPI runs operations in a transaction.
type txAPI struct{ tx *txn.Tx }

func (a txAPI) get(k string) (string, bool, error) {
	v, ok, err := a.tx.Get(ctx, []byte(k))
	return string(v), ok, err
}

func (a txAPI) scan(lo, hi string, limit int, reverse bool) ([]string, error) {
	kvs, err := a.tx.GetRange(ctx, []byte(lo), []byte(hi), limit, reverse)
	return keysOf(kvs), err
}

func (a txAPI) put(k, v string) error     { return a.tx.Put([]byte(k), []byte(v)) }
func (a txAPI) del(k string) error        { return a.tx.Delete([]byte(k)) }
func (a txAPI) clear(lo, hi string) error { return a.tx.DeleteRange([]byte(lo), []byte(hi)) }
func (m modelAPI) put(k, v string) error  { m[k] = v; return nil }
func (m modelAPI) del(k string) error     { delete(m, k); return nil }
func (m modelAPI) clear(lo, hi string) error {
	for k := range m {
		if k >= lo && k < hi {
			delete(m, k)
		}
	}
	return nil
}

// modelAPI runs operations on a plain map.
type modelAPI map[string]string

func (m modelAPI) get(k string) (string, bool, error) { v, ok := m[k]; return v, ok, nil }

func (m modelAPI) scan(lo, hi string, limit int, reverse bool) ([]string, error) {
	keys := slices.Sorted(maps.Keys(m))
	if reverse {
		slices.Reverse(keys)
	}
	out := []string{}
	for _, k := range keys {
		if k >= lo && k < hi && (limit <= 0 || len(out) < limit) {
			out = append(out, k+"="+m[k])
		}
	}
	return out, nil
}

// outcomeOf classifies a commit error.
func outcomeOf(err error) (byte, error) {
	switch {
	case err == nil:
		return 'c', nil
	case errors.Is(err, txn.ErrCommitUnknown):
		return 'u', nil
	case txn.Retryable(err):
		return 'a', nil
	}
	return 'a', err
}

// resolve fixes the outcome and version of every transaction from the
// change feed (the authority on what was applied): the first write event
// whose list holds a transaction's unique value names its commit version. It reports
// aborted transactions whose writes were applied, and versions that
// disagree with what Commit returned.
func resolve(hist []*htx, events []memkv.Event) []string {
	byVal := map[int]uint64{}
	for _, e := range events {
		if e.Kind != memkv.EventWrite || e.Deleted {
			continue
		}
		for _, n := range parseList(string(e.Value)) {
			if _, ok := byVal[n]; !ok {
				byVal[n] = e.Version // first appearance: its writer's commit
			}
		}
	}
	var bad []string
	for _, h := range hist {
		if !h.writes() {
			continue
		}
		var seen uint64
		for _, o := range h.ops {
			if v, ok := byVal[o.val]; o.kind == 'a' && ok {
				seen = v
			}
		}
		switch {
		case h.outcome == 'u' && seen > 0:
			h.outcome, h.version = 'c', seen
		case h.outcome == 'u':
			h.outcome = 'a'
		case h.outcome == 'a' && seen > 0:
			bad = append(bad, fmt.Sprintf("txn %d aborted but its write is visible at %d", h.id, seen))
		case h.outcome == 'c' && seen != h.version:
			bad = append(bad, fmt.Sprintf("txn %d committed at %d but the feed says %d", h.id, h.version, seen))
		}
	}
	return bad
}

// replay re-runs the committed transactions serially in commit order on a
// map and checks every read against what the transaction saw; it returns
// the first mismatch, and the final state.
func replay(hist []*htx) (string, map[string]string) {
	var done []*htx
	for _, h := range hist {
		if h.outcome == 'c' {
			done = append(done, h)
		}
	}
	slices.SortStableFunc(done, func(a, b *htx) int {
		if a.version != b.version {
			return int(a.version) - int(b.version)
		}
		return boolInt(a.readOnly) - boolInt(b.readOnly) // a read-only tx sees the writer of its version
	})
	model := modelAPI{}
	for _, h := range done {
		local := maps.Clone(model)
		for i, o := range h.ops {
			got, _ := execOp(local, o)
			if got != o.got {
				return fmt.Sprintf("txn %d (version %d) op %d %c %s: saw %q, serial order gives %q",
					h.id, h.version, i, o.kind, o.key, o.got, got), nil
			}
		}
		model = local
	}
	return "", model
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
