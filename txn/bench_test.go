package txn_test

import (
	"fmt"
	"testing"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

var (
	benchKeys = func() [][]byte {
		ks := make([][]byte, 1024)
		for i := range ks {
			ks[i] = []byte(fmt.Sprintf("key%08d", i))
		}
		return ks
	}()
	benchVal = []byte("value-0123456789")
	sinkB    []byte
)

// BenchmarkPutGet: write then read back inside a transaction, 1024
// operations per transaction.
func BenchmarkPutGet(b *testing.B) {
	s := newStore(b, memkv.Config{})
	var tx *txn.Tx
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%1024 == 0 {
			if tx != nil {
				tx.Rollback()
			}
			tx, _ = txn.Begin(s, txn.Options{})
		}
		k := benchKeys[i%1024]
		_ = tx.Put(k, benchVal)
		sinkB, _, _ = tx.Get(ctx, k)
		i++
	}
}

// BenchmarkPutGetNaive is the baseline: a map of copied values, no
// savepoints, budgets or ordering.
func BenchmarkPutGetNaive(b *testing.B) {
	var m map[string][]byte
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%1024 == 0 {
			m = make(map[string][]byte)
		}
		k := benchKeys[i%1024]
		m[string(k)] = append([]byte(nil), benchVal...)
		sinkB = m[string(k)]
		i++
	}
}

// BenchmarkManagerParallel: thin-client transactions (begin, read, write,
// commit) through one shared Manager from all cores.
func BenchmarkManagerParallel(b *testing.B) {
	s := newStore(b, memkv.Config{})
	m, err := txn.NewManager(s, txn.ManagerConfig{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			id, err := m.Begin(txn.Options{})
			if err != nil {
				b.Error(err)
				return
			}
			_, _, _ = m.Get(ctx, id, benchKeys[i%1024])
			_ = m.Put(id, benchKeys[(i*7+1)%1024], benchVal)
			_, _ = m.Commit(ctx, id)
			i++
		}
	})
	st := m.Stats()
	b.ReportMetric(st.ConflictRate(), "conflict-rate")
}

// BenchmarkSavepointRollback: open a savepoint, write one new key, roll back
// and release, in a transaction that already holds writes keys. Rolling back
// one write should not cost in proportion to the writes made before the
// savepoint.
func BenchmarkSavepointRollback(b *testing.B) {
	for _, writes := range []int{1 << 10, 1 << 14, 1 << 17} {
		b.Run(fmt.Sprintf("writes=%d", writes), func(b *testing.B) {
			s := newStore(b, memkv.Config{})
			tx, err := txn.Begin(s, txn.Options{MemoryBudget: -1})
			if err != nil {
				b.Fatal(err)
			}
			defer tx.Rollback()
			for i := range writes {
				if err := tx.Put([]byte(fmt.Sprintf("old%08d", i)), benchVal); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				sp, _ := tx.Savepoint()
				_ = tx.Put(benchKeys[i%len(benchKeys)], benchVal)
				_ = tx.RollbackTo(sp)
				_ = tx.Release(sp)
				i++
			}
		})
	}
}

// txWithClears begins a transaction (no memory budget) and makes n
// DeleteRange calls in it, of ranges that hold no benchmark key.
func txWithClears(b *testing.B, n int) *txn.Tx {
	b.Helper()
	tx, err := txn.Begin(newStore(b, memkv.Config{}), txn.Options{MemoryBudget: -1})
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		lo := fmt.Appendf(nil, "clear%08d", i)
		if err := tx.DeleteRange(lo, append(lo, 0xff)); err != nil {
			b.Fatal(err)
		}
	}
	return tx
}

// BenchmarkGetAfterClears: a Get of a key the transaction neither wrote nor
// cleared, after clears DeleteRange calls. Every such Get asks whether a
// clear covers the key before it reads the engine, so the clears should
// cost a lookup that grows slowly with their number, not a scan of them.
func BenchmarkGetAfterClears(b *testing.B) {
	for _, clears := range []int{1, 64, 4096} {
		b.Run(fmt.Sprintf("clears=%d", clears), func(b *testing.B) {
			tx := txWithClears(b, clears)
			defer tx.Rollback()
			// Snapshot reads record nothing: the read set stays the same.
			// The first lookup indexes the clears; the loop measures the
			// lookups after it.
			r := tx.Snapshot()
			sinkB, _, _ = r.Get(ctx, benchKeys[0])
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				sinkB, _, _ = r.Get(ctx, benchKeys[i%len(benchKeys)])
				i++
			}
		})
	}
}

// BenchmarkClearGetRollback: in a transaction that holds clears range
// clears, open a savepoint, clear one more range, read a key outside the
// buffer, roll back and release: the pattern of a retried step. Each
// rollback removes a clear, which must not make the next lookup pay for
// all the clears again.
func BenchmarkClearGetRollback(b *testing.B) {
	for _, clears := range []int{64, 4096} {
		b.Run(fmt.Sprintf("clears=%d", clears), func(b *testing.B) {
			tx := txWithClears(b, clears)
			defer tx.Rollback()
			r := tx.Snapshot()
			sinkB, _, _ = r.Get(ctx, benchKeys[0]) // indexes the clears
			lo, hi := []byte("clear"), []byte("clear\xff")
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				sp, _ := tx.Savepoint()
				_ = tx.DeleteRange(lo, hi)
				sinkB, _, _ = r.Get(ctx, benchKeys[i%len(benchKeys)])
				_ = tx.RollbackTo(sp)
				_ = tx.Release(sp)
				i++
			}
		})
	}
}
