// Package memkv_test benchmarks tierkit's memkv store as a plain ordered
// key-value backend beside badger v4 in its in-memory mode: parallel point
// reads, 100-key range scans and blind single-key writes, doing the same
// work on both sides. See README.md.
package memkv_test

import (
	"context"
	"github.com/tierkit/tierkit/bench/internal/cputime"
	"github.com/tierkit/tierkit/bench/internal/kvfixture"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
)

const nKeys = 1 << 14

var (
	ctx   = context.Background()
	keys  = kvfixture.Keys(nKeys, 1)
	value = kvfixture.Value
	sink  []byte
	sinkN int
	// sinkCh receives each parallel reader's byte count (buffered for
	// more readers than any machine here has cores).
	sinkCh = make(chan int, 1024)
)

// BenchmarkGetParallel: point reads of random stored keys at the latest
// version, from every core.
func BenchmarkGetParallel(b *testing.B) {
	b.Run("impl=memkv", func(b *testing.B) {
		s := kvfixture.Memkv(b, keys)
		b.ReportAllocs()
		b.ResetTimer()
		done := cputime.ReportProcess(b)
		b.RunParallel(func(pb *testing.PB) {
			i, n := 0, 0
			for pb.Next() {
				v, ok, err := s.Get(ctx, s.ReadVersion(), keys[i*7919%nKeys])
				if err != nil || !ok {
					b.Error("wrong answer:", ok, err)
					return
				}
				n += len(v)
				i++
			}
			sinkCh <- n
		})
		done()
		drain()
	})
	b.Run("impl=badger", func(b *testing.B) {
		db := kvfixture.Badger(b, keys)
		b.ReportAllocs()
		b.ResetTimer()
		done := cputime.ReportProcess(b)
		b.RunParallel(func(pb *testing.PB) {
			i, n := 0, 0
			for pb.Next() {
				err := db.View(func(tx *badger.Txn) error {
					it, err := tx.Get(keys[i*7919%nKeys])
					if err != nil {
						return err
					}
					return it.Value(func(v []byte) error { n += len(v); return nil })
				})
				if err != nil {
					b.Error(err)
					return
				}
				i++
			}
			sinkCh <- n
		})
		done()
		drain()
	})
}

// BenchmarkScan100: an ordered range read of 100 keys and values.
func BenchmarkScan100(b *testing.B) {
	b.Run("impl=memkv", func(b *testing.B) {
		s := kvfixture.Memkv(b, keys)
		var dst [][]byte
		b.ReportAllocs()
		i := 0
		done := cputime.ReportProcess(b)
		for b.Loop() {
			var err error
			dst, err = s.Scan(ctx, s.ReadVersion(), keys[i%(nKeys-200)], nil, 100, false, dst[:0])
			if err != nil || len(dst) != 200 {
				b.Fatal(err, len(dst))
			}
			i += 101
		}
		done()
	})
	b.Run("impl=badger", func(b *testing.B) {
		db := kvfixture.Badger(b, keys)
		b.ReportAllocs()
		i := 0
		done := cputime.ReportProcess(b)
		for b.Loop() {
			n := 0
			err := db.View(func(tx *badger.Txn) error {
				it := tx.NewIterator(badger.IteratorOptions{PrefetchValues: false})
				defer it.Close()
				for it.Seek(keys[i%(nKeys-200)]); it.Valid() && n < 100; it.Next() {
					item := it.Item()
					sink = item.Key()
					if err := item.Value(func(v []byte) error { sinkN += len(v); return nil }); err != nil {
						return err
					}
					n++
				}
				return nil
			})
			if err != nil || n != 100 {
				b.Fatal(err, n)
			}
			i += 101
		}
		done()
	})
}

// BenchmarkPut: a blind single-key write committed on its own.
func BenchmarkPut(b *testing.B) {
	b.Run("impl=memkv", func(b *testing.B) {
		s := kvfixture.Memkv(b, keys)
		b.ReportAllocs()
		i := 0
		done := cputime.ReportProcess(b)
		for b.Loop() {
			if _, err := s.Put(ctx, keys[i%nKeys], value); err != nil {
				b.Fatal(err)
			}
			i++
		}
		done()
	})
	b.Run("impl=badger", func(b *testing.B) {
		db := kvfixture.Badger(b, keys)
		b.ReportAllocs()
		i := 0
		done := cputime.ReportProcess(b)
		for b.Loop() {
			if err := db.Update(func(tx *badger.Txn) error { return tx.Set(keys[i%nKeys], value) }); err != nil {
				b.Fatal(err)
			}
			i++
		}
		done()
	})
}

// drain empties sinkCh after a parallel run.
func drain() {
	for {
		select {
		case n := <-sinkCh:
			sinkN += n
		default:
			return
		}
	}
}
