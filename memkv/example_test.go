package memkv_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/tierkit/tierkit/memkv"
)

// A transaction reads at a version and commits its writes with its read set;
// the store rejects it if a write committed in between overlaps a read.
func Example() {
	ctx := context.Background()
	s, _ := memkv.New(memkv.Config{})
	_, _ = s.Put(ctx, []byte("balance"), []byte("100"))

	rv := s.ReadVersion()
	v, _, _ := s.Get(ctx, rv, []byte("balance"))
	fmt.Printf("read %s at version %d\n", v, rv)

	_, _ = s.Put(ctx, []byte("balance"), []byte("50")) // someone else writes

	_, err := s.Commit(ctx, &memkv.CommitRequest{
		ReadVersion: rv,
		ReadKeys:    [][]byte{[]byte("balance")},
		Sets:        [][]byte{[]byte("balance"), []byte("90")},
	})
	var ce *memkv.ConflictError
	fmt.Println(errors.As(err, &ce), string(ce.Keys[0]))
	// Output:
	// read 100 at version 1
	// true balance
}

// A subscriber receives writes in commit order and checkpoints.
func ExampleStore_Subscribe() {
	ctx := context.Background()
	s, _ := memkv.New(memkv.Config{CheckpointEvery: 2})
	sub := s.Subscribe()
	defer sub.Close()
	_, _ = s.Put(ctx, []byte("a"), []byte("1"))
	_, _ = s.Delete(ctx, []byte("a"))
	for {
		e, ok, _ := sub.TryNext()
		if !ok {
			break
		}
		fmt.Println(e.Kind == memkv.EventCheckpoint, e.Version, string(e.Key), e.Deleted)
	}
	// Output:
	// false 1 a false
	// false 2 a true
	// true 2  false
}
