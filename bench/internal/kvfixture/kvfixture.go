package kvfixture

import (
	"context"
	"fmt"
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

// Memkv returns a memkv store holding Value under every key, committed at once.
func Memkv(b testing.TB, keys [][]byte) *memkv.Store {
	s, err := memkv.New(memkv.Config{})
	if err != nil {
		b.Fatal(err)
	}
	req := &memkv.CommitRequest{}
	for _, k := range keys {
		req.Sets = append(req.Sets, k, Value)
	}
	if _, err := s.Commit(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	return s
}

// Badger returns an in-memory badger holding Value under every key; it is closed
// when the test or benchmark ends.
func Badger(b testing.TB, keys [][]byte) *badger.DB {
	db, err := badger.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	wb := db.NewWriteBatch()
	for _, k := range keys {
		if err := wb.Set(k, Value); err != nil {
			b.Fatal(err)
		}
	}
	if err := wb.Flush(); err != nil {
		b.Fatal(err)
	}
	return db
}
