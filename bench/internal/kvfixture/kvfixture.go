package kvfixture

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/tierkit/tierkit/memkv"
)

// Value is the 16-byte value stored under every key.
var Value = []byte("value-0123456789")

// Keys returns n keys "key%08d"; key i is number i*stride mod n, so stride 1 gives
// them in ascending order and a stride prime to n a fixed shuffle of the same set.
func Keys(n, stride int) [][]byte {
	ks := make([][]byte, n)
	for i := range ks {
		ks[i] = []byte(fmt.Sprintf("key%08d", i*stride%n))
	}
	return ks
}

// loadOrder is the order both stores are loaded in: a fixed shuffle of the
// indexes of n keys, unrelated to the order of the caller's slice. memkv lays
// out a key's node and value in the order it is first written, while badger's
// WriteBatch applies a transaction's writes in map order, scattered over its
// memtable; loaded in the slice's order, memkv's keys sat next to each other in
// memory in the very orders the benchmarks read them (ascending for Scan100,
// consecutive slice elements in bench/txn), a locality badger never had.
func loadOrder(n int) []int {
	return rand.New(rand.NewPCG(7919, 16381)).Perm(n)
}

// Memkv returns a memkv store holding Value under every key, committed at once
// in loadOrder.
func Memkv(b testing.TB, keys [][]byte) *memkv.Store {
	s, err := memkv.New(memkv.Config{})
	if err != nil {
		b.Fatal(err)
	}
	req := &memkv.CommitRequest{}
	for _, i := range loadOrder(len(keys)) {
		req.Sets = append(req.Sets, keys[i], Value)
	}
	if _, err := s.Commit(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	return s
}

// Badger returns an in-memory badger holding Value under every key, written in
// loadOrder (its WriteBatch applies them in map order); it is closed when the
// test or benchmark ends.
func Badger(b testing.TB, keys [][]byte) *badger.DB {
	db, err := badger.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	wb := db.NewWriteBatch()
	for _, i := range loadOrder(len(keys)) {
		if err := wb.Set(keys[i], Value); err != nil {
			b.Fatal(err)
		}
	}
	if err := wb.Flush(); err != nil {
		b.Fatal(err)
	}
	return db
}
