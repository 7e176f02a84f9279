package txn_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// A script is a small transaction: reads, writes computed from what it read,
// deletes and scans. Every interleaving of two scripts' steps (commit last)
// runs against memkv, and the outcome is checked against every serial order
// of the committed transactions: same reads, same final state.

type sop struct {
	kind byte // 'r' read, 'w' write, 'd' delete, 's' scan [key, end)
	key  string
	end  string
}

type script []sop

type scriptCase struct {
	name   string
	init   map[string]string
	t1, t2 script
	// prevented[i]: the anomaly never happens at level i (serializable,
	// snapshot, read committed).
	prevented [3]bool
}

var scriptCases = []scriptCase{
	{"read skew", map[string]string{"x": "1", "y": "5"},
		script{{'r', "x", ""}, {'r', "y", ""}, {'w', "z", ""}},
		script{{'r', "x", ""}, {'w', "x", ""}, {'w', "y", ""}}, [3]bool{true, true, false}},
	{"lost update", map[string]string{"x": "1"},
		script{{'r', "x", ""}, {'w', "x", ""}},
		script{{'r', "x", ""}, {'w', "x", ""}}, [3]bool{true, true, false}},
	{"lost delete", map[string]string{"x": "1"},
		script{{'r', "x", ""}, {'d', "x", ""}},
		script{{'r', "x", ""}, {'w', "x", ""}}, [3]bool{true, true, false}},
	{"phantom read", map[string]string{"b": "1", "c": "2", "total": "3"},
		script{{'s', "a", "m"}, {'w', "total", ""}},
		script{{'r', "total", ""}, {'w', "e", ""}}, [3]bool{true, false, false}},
	{"phantom delete", map[string]string{"b": "1", "c": "2", "total": "3"},
		script{{'s', "a", "m"}, {'w', "total", ""}},
		script{{'r', "total", ""}, {'d', "b", ""}}, [3]bool{true, false, false}},
	{"write skew", map[string]string{"x": "1", "y": "1"},
		script{{'r', "x", ""}, {'r', "y", ""}, {'w', "x", ""}},
		script{{'r', "x", ""}, {'r', "y", ""}, {'w', "y", ""}}, [3]bool{true, false, false}},
}

// runner executes one script step by step, recording what it read.
type runner struct {
	s     *memkv.Store
	iso   txn.Isolation
	tx    *txn.Tx // begun at the first step
	sc    script
	next  int
	sum   int
	reads []string
	ok    bool // committed
}

func (r *runner) step(t *testing.T) {
	if r.tx == nil {
		r.tx = begin(t, r.s, r.iso)
	}
	if r.next == len(r.sc) {
		_, err := r.tx.Commit(ctx)
		if err != nil {
			require.True(t, errors.Is(err, txn.ErrConflict), "%v", err)
		}
		r.ok = err == nil
		r.next++
		return
	}
	o := r.sc[r.next]
	r.next++
	r.reads = append(r.reads, applyOp(t, o, &r.sum,
		func(k string) (string, bool) {
			v, ok, err := r.tx.Get(ctx, b(k))
			require.NoError(t, err)
			return string(v), ok
		},
		func(lo, hi string) []txn.KV {
			kvs, err := r.tx.GetRange(ctx, b(lo), b(hi), 0, false)
			require.NoError(t, err)
			return kvs
		},
		func(k, v string) { require.NoError(t, r.tx.Put(b(k), b(v))) },
		func(k string) { require.NoError(t, r.tx.Delete(b(k))) }))
}

// applyOp runs one step through the given accessors and returns what it read
// ("" for writes). Writes store the sum of the numbers read so far plus one.
func applyOp(t *testing.T, o sop, sum *int, get func(string) (string, bool), scan func(lo, hi string) []txn.KV,
	put func(k, v string), del func(string)) string {
	switch o.kind {
	case 'r':
		v, ok := get(o.key)
		n, _ := strconv.Atoi(v)
		*sum += n
		return fmt.Sprint(v, ok)
	case 's':
		out := ""
		for _, kv := range scan(o.key, o.end) {
			n, _ := strconv.Atoi(string(kv.Value))
			*sum += n
			out += string(kv.Key) + "=" + string(kv.Value) + ";"
		}
		return out
	case 'w':
		put(o.key, strconv.Itoa(*sum+1))
	case 'd':
		del(o.key)
	default:
		t.Fatalf("bad op %q", o.kind)
	}
	return ""
}

// serialRun runs a script alone against m (modified in place).
func serialRun(t *testing.T, sc script, m map[string]string) []string {
	sum := 0
	var reads []string
	for _, o := range sc {
		reads = append(reads, applyOp(t, o, &sum,
			func(k string) (string, bool) { v, ok := m[k]; return v, ok },
			func(lo, hi string) []txn.KV {
				var kvs []txn.KV
				for _, k := range slices.Sorted(maps.Keys(m)) {
					if k >= lo && k < hi {
						kvs = append(kvs, txn.KV{Key: b(k), Value: b(m[k])})
					}
				}
				return kvs
			},
			func(k, v string) { m[k] = v },
			func(k string) { delete(m, k) }))
	}
	return reads
}

// interleavings returns every merge of n1 steps of T1 and n2 of T2, as a
// sequence of 1s and 2s.
func interleavings(n1, n2 int) [][]int {
	if n1 == 0 && n2 == 0 {
		return [][]int{nil}
	}
	var out [][]int
	if n1 > 0 {
		for _, rest := range interleavings(n1-1, n2) {
			out = append(out, append([]int{1}, rest...))
		}
	}
	if n2 > 0 {
		for _, rest := range interleavings(n1, n2-1) {
			out = append(out, append([]int{2}, rest...))
		}
	}
	return out
}

// serializable reports whether the committed runners match some serial
// order from init: same reads, same final state.
func serializable(t *testing.T, init map[string]string, final map[string]string, rs []*runner) bool {
	var committed []*runner
	for _, r := range rs {
		if r.ok {
			committed = append(committed, r)
		}
	}
	orders := [][]*runner{committed}
	if len(committed) == 2 {
		orders = append(orders, []*runner{committed[1], committed[0]})
	}
	for _, order := range orders {
		m := maps.Clone(init)
		match := true
		for _, r := range order {
			match = match && slices.Equal(serialRun(t, r.sc, m), r.reads)
		}
		if match && maps.Equal(m, final) {
			return true
		}
	}
	return false
}

func TestEveryInterleaving(t *testing.T) {
	levels := []txn.Isolation{txn.Serializable, txn.Snapshot, txn.ReadCommitted}
	for _, c := range scriptCases {
		for li, iso := range levels {
			t.Run(c.name+"/"+iso.String(), func(t *testing.T) {
				all := interleavings(len(c.t1)+1, len(c.t2)+1)
				anomalies, aborts := 0, 0
				for _, order := range all {
					s := newStore(t, memkv.Config{})
					var kv []string
					for k, v := range c.init {
						kv = append(kv, k, v)
					}
					seed(t, s, kv...)
					rs := []*runner{{s: s, iso: iso, sc: c.t1}, {s: s, iso: iso, sc: c.t2}}
					for _, who := range order {
						rs[who-1].step(t)
					}
					final := map[string]string{}
					kvs, err := s.Scan(ctx, s.ReadVersion(), nil, nil, 0, false, nil)
					require.NoError(t, err)
					for i := 0; i < len(kvs); i += 2 {
						final[string(kvs[i])] = string(kvs[i+1])
					}
					if !serializable(t, c.init, final, rs) {
						anomalies++
					}
					if !rs[0].ok || !rs[1].ok {
						aborts++
						serial := slices.IsSorted(order) || slices.IsSortedFunc(order, func(a, b int) int { return b - a })
						assert.False(t, serial, "a serial schedule never aborts: %v", order)
					}
				}
				t.Logf("%d interleavings: %d anomalies, %d with an abort", len(all), anomalies, aborts)
				if c.prevented[li] {
					assert.Zero(t, anomalies)
				} else {
					assert.Positive(t, anomalies, "the harness sees the anomaly this level allows")
				}
			})
		}
	}
}
