// Package txn_test benchmarks tierkit's txn and memkv side by side with
// badger v4 in its in-memory mode (a transactional, MVCC, optimistic
// key-value store: the closest embedded peer). Each pair does the same work;
// see README.md for the results and how to reproduce them.
package txn_test

import (
	"context"
	"errors"
	"github.com/tierkit/tierkit/bench/internal/cputime"
	"github.com/tierkit/tierkit/bench/internal/kvfixture"
	"testing"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

const nKeys = 1 << 14

var (
	ctx   = context.Background()
	keys  = kvfixture.Keys(nKeys, 7919)
	value = kvfixture.Value
	sink  []byte
	// sinkLen keeps the naive read set alive.
	sinkLen int
)

// opsPerTx is how many operations share one transaction in the per-operation
// benchmarks, so that begin and discard are amortized the same way for both.
const opsPerTx = 1024

// BenchmarkWriteReadBack: Put a key then Get it back inside a transaction
// (read-your-writes). Target: <= 120 ns/op, 0 allocs amortized.
func BenchmarkWriteReadBack(b *testing.B) {
	b.Run("impl=tierkit", func(b *testing.B) {
		s := kvfixture.Memkv(b, keys)
		b.ReportAllocs()
		var tx *txn.Tx
		i := 0
		done := cputime.ReportProcess(b)
		for b.Loop() {
			if i%opsPerTx == 0 {
				if tx != nil {
					tx.Rollback()
				}
				tx = begin(b, s)
			}
			k := keys[i%nKeys]
			if err := tx.Put(k, value); err != nil {
				b.Fatal(err)
			}
			v, ok, err := tx.Get(ctx, k)
			if err != nil || !ok || len(v) != len(value) {
				b.Fatal("wrong answer:", ok, err)
			}
			sink = v
			i++
		}
		done()
	})
	b.Run("impl=badger", func(b *testing.B) {
		db := kvfixture.Badger(b, keys)
		b.ReportAllocs()
		var tx *badger.Txn
		i := 0
		done := cputime.ReportProcess(b)
		for b.Loop() {
			if i%opsPerTx == 0 {
				if tx != nil {
					tx.Discard()
				}
				tx = db.NewTransaction(true)
			}
			k := keys[i%nKeys]
			if err := tx.Set(k, value); err != nil {
				b.Fatal(err)
			}
			it, err := tx.Get(k)
			if err != nil {
				b.Fatal(err)
			}
			if err := it.Value(readValue); err != nil {
				b.Fatal(err)
			}
			i++
		}
		done()
		tx.Discard()
	})
}

// BenchmarkRecordRead: the bookkeeping of one read in a transaction's read
// set (tierkit: AddReadConflictKey, what Get records). Target: <= 25 ns.
// The naive baseline appends a copy of the key to a slice of its own.
func BenchmarkRecordRead(b *testing.B) {
	b.Run("impl=tierkit", func(b *testing.B) {
		s := kvfixture.Memkv(b, keys)
		b.ReportAllocs()
		var tx *txn.Tx
		i := 0
		done := cputime.ReportProcess(b)
		for b.Loop() {
			if i%opsPerTx == 0 {
				if tx != nil {
					tx.Rollback()
				}
				tx = begin(b, s)
			}
			if err := tx.AddReadConflictKey(keys[i%nKeys]); err != nil {
				b.Fatal(err)
			}
			i++
		}
		done()
	})
	b.Run("impl=naive", func(b *testing.B) {
		b.ReportAllocs()
		var set [][]byte
		i := 0
		done := cputime.ReportProcess(b)
		for b.Loop() {
			if i%opsPerTx == 0 {
				set = nil
			}
			set = append(set, append([]byte(nil), keys[i%nKeys]...))
			i++
		}
		done()
		sinkLen = len(set)
	})
}

// BenchmarkGet: a point read of a stored key through a transaction (engine
// read plus recording). badger's Txn.Get also records the read for its
// conflict check.
func BenchmarkGet(b *testing.B) {
	b.Run("impl=tierkit", func(b *testing.B) {
		s := kvfixture.Memkv(b, keys)
		b.ReportAllocs()
		var tx *txn.Tx
		i := 0
		done := cputime.ReportProcess(b)
		for b.Loop() {
			if i%opsPerTx == 0 {
				if tx != nil {
					tx.Rollback()
				}
				tx = begin(b, s)
			}
			v, ok, err := tx.Get(ctx, keys[i*31%nKeys])
			if err != nil || !ok || len(v) != len(value) {
				b.Fatal("wrong answer:", ok, err)
			}
			sink = v
			i++
		}
		done()
	})
	b.Run("impl=badger", func(b *testing.B) {
		db := kvfixture.Badger(b, keys)
		b.ReportAllocs()
		var tx *badger.Txn
		i := 0
		done := cputime.ReportProcess(b)
		for b.Loop() {
			if i%opsPerTx == 0 {
				if tx != nil {
					tx.Discard()
				}
				tx = db.NewTransaction(true)
			}
			it, err := tx.Get(keys[i*31%nKeys])
			if err != nil {
				b.Fatal(err)
			}
			if err := it.Value(readValue); err != nil {
				b.Fatal(err)
			}
			i++
		}
		done()
		tx.Discard()
	})
}

// BenchmarkBuild100R100W: begin, record 100 reads, buffer 100 writes and
// build the commit request (no engine call). Target: <= 10 us. badger does
// the same bookkeeping (100 Gets recorded, 100 Sets buffered) and discards.
func BenchmarkBuild100R100W(b *testing.B) {
	// tierkit-get does badger's work: each read goes through the engine
	// (Tx.Get) as badger's Get does, where impl=tierkit only records it, the
	// gateway-side bookkeeping the 10 us target is about.
	b.Run("impl=tierkit-get", func(b *testing.B) {
		build100(b, func(tx *txn.Tx, k []byte) error {
			v, ok, err := tx.Get(ctx, k)
			if err == nil && !ok {
				err = errNotFound
			}
			sink = v
			return err
		})
	})
	b.Run("impl=tierkit", func(b *testing.B) {
		build100(b, func(tx *txn.Tx, k []byte) error { return tx.AddReadConflictKey(k) })
	})
	b.Run("impl=badger", func(b *testing.B) {
		db := kvfixture.Badger(b, keys)
		b.ReportAllocs()
		i := 0
		done := cputime.ReportProcess(b)
		for b.Loop() {
			tx := db.NewTransaction(true)
			for j := range 100 {
				if _, err := tx.Get(keys[(i+j)%nKeys]); err != nil {
					b.Fatal(err)
				}
			}
			for j := range 100 {
				if err := tx.Set(keys[(i+j+100)%nKeys], value); err != nil {
					b.Fatal(err)
				}
			}
			tx.Discard()
			i += 200
		}
		done()
	})
}

// build100 is one tierkit variant of BenchmarkBuild100R100W: 100 reads done
// by read, 100 writes buffered, the commit request built, then rolled back.
func build100(b *testing.B, read func(tx *txn.Tx, k []byte) error) {
	s := kvfixture.Memkv(b, keys)
	b.ReportAllocs()
	i := 0
	done := cputime.ReportProcess(b)
	for b.Loop() {
		tx := begin(b, s)
		for j := range 100 {
			if err := read(tx, keys[(i+j)%nKeys]); err != nil {
				b.Fatal(err)
			}
		}
		for j := range 100 {
			if err := tx.Put(keys[(i+j+100)%nKeys], value); err != nil {
				b.Fatal(err)
			}
		}
		if r := tx.Request(); len(r.ReadKeys) != 100 || len(r.Sets) != 200 {
			b.Fatal("bad request")
		}
		tx.Rollback()
		i += 200
	}
	done()
}

// BenchmarkCommit2R2W: a whole transaction of 2 reads and 2 writes,
// validated and applied by the engine, on one goroutine. Target: >= 200k
// transactions/s. "engine" sends a prepared request straight to memkv (the
// validation throughput itself); "tierkit" goes through txn; badger runs the
// same transaction and commits it.
func BenchmarkCommit2R2W(b *testing.B) {
	b.Run("impl=engine", func(b *testing.B) {
		s := kvfixture.Memkv(b, keys)
		req := &memkv.CommitRequest{ReadKeys: make([][]byte, 2), Sets: make([][]byte, 4)}
		b.ReportAllocs()
		i := 0
		done := cputime.ReportProcess(b)
		for b.Loop() {
			req.ReadVersion = s.ReadVersion()
			req.ReadKeys[0], req.ReadKeys[1] = keys[i%nKeys], keys[(i+1)%nKeys]
			req.Sets[0], req.Sets[1] = keys[(i+2)%nKeys], value
			req.Sets[2], req.Sets[3] = keys[(i+3)%nKeys], value
			if _, err := s.Commit(ctx, req); err != nil {
				b.Fatal(err)
			}
			i += 4
		}
		done()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "txns/s")
	})
	b.Run("impl=tierkit", func(b *testing.B) {
		s := kvfixture.Memkv(b, keys)
		b.ReportAllocs()
		i := 0
		done := cputime.ReportProcess(b)
		for b.Loop() {
			tx := begin(b, s)
			for _, k := range [2][]byte{keys[i%nKeys], keys[(i+1)%nKeys]} {
				if _, ok, err := tx.Get(ctx, k); err != nil || !ok {
					b.Fatal("wrong answer:", ok, err)
				}
			}
			for _, k := range [2][]byte{keys[(i+2)%nKeys], keys[(i+3)%nKeys]} {
				if err := tx.Put(k, value); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := tx.Commit(ctx); err != nil {
				b.Fatal(err)
			}
			i += 4
		}
		done()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "txns/s")
	})
	b.Run("impl=badger", func(b *testing.B) {
		db := kvfixture.Badger(b, keys)
		b.ReportAllocs()
		i := 0
		done := cputime.ReportProcess(b)
		for b.Loop() {
			tx := db.NewTransaction(true)
			for _, k := range [2][]byte{keys[i%nKeys], keys[(i+1)%nKeys]} {
				if _, err := tx.Get(k); err != nil {
					b.Fatal(err)
				}
			}
			for _, k := range [2][]byte{keys[(i+2)%nKeys], keys[(i+3)%nKeys]} {
				if err := tx.Set(k, value); err != nil {
					b.Fatal(err)
				}
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
			i += 4
		}
		done()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "txns/s")
	})
}

// begin starts a transaction on s or stops the benchmark.
func begin(b *testing.B, s *memkv.Store) *txn.Tx {
	tx, err := txn.Begin(s, txn.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return tx
}

var errNotFound = errors.New("stored key not found")

// readValue is badger's side of a checked read: the value must have the
// stored value's length, as on tierkit's side.
func readValue(v []byte) error {
	if len(v) != len(value) {
		return errors.New("wrong value")
	}
	sink = v
	return nil
}
