package txn_test

import (
	"context"
	"errors"
	"fmt"
	"time"

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

// A gateway holds transactions for thin clients by id, and reaps those the
// clients abandon.
func ExampleManager() {
	ctx := context.Background()
	s, _ := memkv.New(memkv.Config{})
	m, _ := txn.NewManager(s, txn.ManagerConfig{IdleTimeout: time.Minute})

	id, _ := m.Begin(txn.Options{})
	_ = m.Put(id, []byte("cart/1"), []byte("book"))
	v, ok, _ := m.Get(ctx, id, []byte("cart/1")) // read-your-writes
	fmt.Println(string(v), ok)
	_, err := m.Commit(ctx, id)
	fmt.Println(err)

	abandoned, _ := m.Begin(txn.Options{})
	_ = m.Put(abandoned, []byte("cart/2"), []byte("pen"))
	fmt.Println(m.Reap(time.Now().Add(2*time.Minute)), m.Stats().ReapedIdle)
	// Output:
	// book true
	// <nil>
	// 1 1
}
