package txn_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// Two doctors each take themselves off call if the other is still on call:
// write skew. Serializable isolation catches it: the second commit conflicts.
func Example_writeSkew() {
	ctx := context.Background()
	s, _ := memkv.New(memkv.Config{})
	_, _ = s.Commit(ctx, &memkv.CommitRequest{Sets: [][]byte{
		[]byte("oncall/alice"), []byte("yes"), []byte("oncall/bob"), []byte("yes")}})

	offCall := func(tx *txn.Tx, me string) {
		kvs, _ := tx.GetRange(ctx, []byte("oncall/"), []byte("oncall0"), 0, false)
		if len(kvs) == 2 {
			_ = tx.Delete([]byte("oncall/" + me))
		}
	}
	alice, _ := txn.Begin(s, txn.Options{})
	bob, _ := txn.Begin(s, txn.Options{})
	offCall(alice, "alice")
	offCall(bob, "bob")
	_, err1 := alice.Commit(ctx)
	_, err2 := bob.Commit(ctx)
	var ce *txn.ConflictError
	fmt.Println(err1, errors.As(err2, &ce), string(ce.Ranges[0]))
	// Output: <nil> true oncall/
}

// Run retries conflicts with backoff.
func ExampleRun() {
	ctx := context.Background()
	s, _ := memkv.New(memkv.Config{})
	v, err := txn.Run(ctx, s, txn.Options{}, txn.RetryPolicy{}, func(tx *txn.Tx) error {
		return tx.Put([]byte("greeting"), []byte("hello"))
	})
	fmt.Println(v, err)
	// Output: 1 <nil>
}
