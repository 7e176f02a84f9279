package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

func init() {
	sections = append(sections, section{order: 80, name: "txn",
		title: "gateway-side transactions: serializable validation, retries, thin-client manager", run: tourTxn})
}

func tourTxn(w io.Writer) error {
	if err := tourWriteSkew(w); err != nil {
		return err
	}
	if err := tourCounter(w); err != nil {
		return err
	}
	return tourManager(w)
}

// tourWriteSkew: two doctors go off call at once, at each isolation level.
func tourWriteSkew(w io.Writer) error {
	ctx := context.Background()
	for _, iso := range []txn.Isolation{txn.Serializable, txn.Snapshot} {
		s, err := memkv.New(memkv.Config{})
		if err != nil {
			return err
		}
		if _, err := s.Commit(ctx, &memkv.CommitRequest{Sets: [][]byte{
			[]byte("oncall/alice"), []byte("y"), []byte("oncall/bob"), []byte("y")}}); err != nil {
			return err
		}
		var txs []*txn.Tx
		for _, me := range []string{"alice", "bob"} {
			tx, err := txn.Begin(s, txn.Options{Isolation: iso})
			if err != nil {
				return err
			}
			kvs, err := tx.GetRange(ctx, []byte("oncall/"), []byte("oncall0"), 0, false)
			if err != nil {
				return err
			}
			if len(kvs) == 2 {
				if err := tx.Delete([]byte("oncall/" + me)); err != nil {
					return err
				}
			}
			txs = append(txs, tx)
		}
		_, err1 := txs[0].Commit(ctx)
		_, err2 := txs[1].Commit(ctx)
		left, err := s.Scan(ctx, s.ReadVersion(), []byte("oncall/"), []byte("oncall0"), 0, false, nil)
		if err != nil {
			return err
		}
		if iso == txn.Serializable {
			if err := verify(txnWriteSkewClaims(err1, err2, len(left)/2)...); err != nil {
				return err
			}
		}
		fmt.Fprintf(w, "   write skew at %-13s commits %s / %s -> %d doctor(s) left on call\n",
			iso.String()+":", errText(err1), errText(err2), len(left)/2)
	}
	return nil
}

// txnWriteSkewClaims is what the serializable write-skew line and the
// section's title state: serializable validation lets the first doctor go
// off call, refuses the second with a conflict, and leaves exactly 1 doctor
// on call.
func txnWriteSkewClaims(err1, err2 error, left int) []claim {
	var ce *txn.ConflictError
	return []claim{
		{err1 == nil && errors.As(err2, &ce), fmt.Sprintf("at serializable the first commit succeeds and the second conflicts, not %s / %s",
			errText(err1), errText(err2))},
		{left == 1, fmt.Sprintf("write skew at serializable leaves exactly 1 doctor on call, not %d", left)},
	}
}

func errText(err error) string {
	var ce *txn.ConflictError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &ce) && len(ce.Ranges) > 0:
		return "conflict on " + strconv.Quote(string(ce.Ranges[0])) + "..."
	case errors.As(err, &ce) && len(ce.Keys) > 0:
		return "conflict on " + strconv.Quote(string(ce.Keys[0]))
	}
	return err.Error()
}

// tourCounter: contended increments through Run, and a dropped reply
// resolved by an idempotency key.
func tourCounter(w io.Writer) error {
	ctx := context.Background()
	var drop sync.Once
	s, err := memkv.New(memkv.Config{})
	if err != nil {
		return err
	}
	const workers, each = 4, 200
	incr := func(tx *txn.Tx) error {
		v, _, err := tx.Get(ctx, []byte("counter"))
		if err != nil {
			return err
		}
		n, _ := strconv.Atoi(string(v))
		runtime.Gosched() // let the other goroutines interleave
		return tx.Put([]byte("counter"), []byte(strconv.Itoa(n+1)))
	}
	start := time.Now()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				_, _ = txn.Run(ctx, s, txn.Options{}, txn.RetryPolicy{MaxAttempts: 1000, MaxElapsed: time.Minute}, incr)
			}
		})
	}
	wg.Wait()
	el := time.Since(start)
	v, _, _ := s.Get(ctx, s.ReadVersion(), []byte("counter"))
	st := s.Stats()
	fmt.Fprintf(w, "   %d goroutines x %d increments with Run: counter = %s, %d conflicts retried (%.0f conflicts/s, %.0f commits/s)\n",
		workers, each, v, st.Conflicts, float64(st.Conflicts)/el.Seconds(), float64(st.Commits)/el.Seconds())

	var drops atomic.Int64
	_ = s.SetConfig(memkv.Config{Faults: memkv.Faults{DropReply: func(*memkv.CommitRequest) bool {
		dropped := false
		drop.Do(func() { dropped = true; drops.Add(1) })
		return dropped
	}}})
	_, errNoKey := txn.Run(ctx, s, txn.Options{}, txn.RetryPolicy{}, incr)
	_, errKey := txn.Run(ctx, s, txn.Options{IdempotencyKey: []byte("req-42")}, txn.RetryPolicy{}, incr)
	drop = sync.Once{}
	_, errKey2 := txn.Run(ctx, s, txn.Options{IdempotencyKey: []byte("req-43")}, txn.RetryPolicy{}, incr)
	v, _, _ = s.Get(ctx, s.ReadVersion(), []byte("counter"))
	if want := strconv.Itoa(workers*each + 3); string(v) != want {
		return fmt.Errorf("txn: counter %s after the three runs, want %s: a run was applied twice or not at all", v, want)
	}
	if err := verify(txnLostReplyClaims(drops.Load(), errNoKey, errKey, errKey2)...); err != nil {
		return err
	}
	fmt.Fprintf(w, "   3 more runs, 2 with a lost reply: without idempotency key -> ErrCommitUnknown %v (not retried);\n"+
		"   with key req-42 (reply kept) -> %s; with key req-43 (reply lost: retried, deduplicated) -> %s;\n"+
		"   counter = %s (each run applied once)\n",
		errors.Is(errNoKey, txn.ErrCommitUnknown), errText(errKey), errText(errKey2), v)
	return nil
}

// tourManager: a gateway holding transactions for thin clients reaps the
// abandoned ones.
func tourManager(w io.Writer) error {
	ctx := context.Background()
	s, err := memkv.New(memkv.Config{})
	if err != nil {
		return err
	}
	m, err := txn.NewManager(s, txn.ManagerConfig{IdleTimeout: time.Minute, TotalBudget: 1 << 20})
	if err != nil {
		return err
	}
	const clients = 1000
	var ids []txn.ID
	for i := range clients {
		id, err := m.Begin(txn.Options{})
		if err != nil {
			return err
		}
		key := []byte(fmt.Sprintf("user/%04d", i))
		if _, _, err := m.Get(ctx, id, key); err != nil {
			return err
		}
		if err := m.Put(id, key, []byte("seen")); err != nil {
			return err
		}
		ids = append(ids, id)
	}
	for _, id := range ids[:clients/2] {
		if _, err := m.Commit(ctx, id); err != nil {
			return err
		}
	}
	mem := m.Stats().MemoryBytes
	reaped := m.Reap(time.Now().Add(2 * time.Minute)) // the other half went silent
	st := m.Stats()
	if err := verify(txnManagerClaims(clients, mem, reaped, st)...); err != nil {
		return err
	}
	fmt.Fprintf(w, "   manager: %d thin-client transactions, %d committed, %d abandoned and reaped; memory held %d B -> %d B\n",
		st.Begun, st.Committed, reaped, mem, st.MemoryBytes)
	return nil
}

// txnManagerClaims is what the manager line states for clients transactions
// of which the first half committed: every one was begun, half committed,
// the abandoned half was reaped, and the memory the held transactions were
// charged (mem, before the reap) was all given back.
func txnManagerClaims(clients int, mem int64, reaped int, st txn.ManagerStats) []claim {
	committed := clients / 2
	return []claim{
		{st.Begun == uint64(clients) && st.Committed == uint64(committed),
			fmt.Sprintf("%d transactions begun and %d committed, not %d and %d", clients, committed, st.Begun, st.Committed)},
		{reaped == clients-committed, fmt.Sprintf("the %d abandoned transactions reaped, not %d", clients-committed, reaped)},
		{mem > 0 && st.MemoryBytes == 0 && st.Active == 0,
			fmt.Sprintf("memory held %d B -> 0 B, not %d B (%d still held)", mem, st.MemoryBytes, st.Active)},
	}
}

// txnLostReplyClaims is what the lost-reply lines state: two of the three
// runs' replies were dropped (drops), the run without an idempotency key
// returned ErrCommitUnknown rather than retry, and both keyed runs returned
// ok, the one whose reply was lost by retrying into its recorded commit.
func txnLostReplyClaims(drops int64, errNoKey, errKey, errKey2 error) []claim {
	return []claim{
		{drops == 2, fmt.Sprintf("2 of the 3 runs lost their reply, not %d", drops)},
		{errors.Is(errNoKey, txn.ErrCommitUnknown),
			fmt.Sprintf("without an idempotency key a lost reply -> ErrCommitUnknown, not %s", errText(errNoKey))},
		{errKey == nil, fmt.Sprintf("with key req-42 (reply kept) -> ok, not %s", errText(errKey))},
		{errKey2 == nil, fmt.Sprintf("with key req-43 (reply lost: retried, deduplicated) -> ok, not %s", errText(errKey2))},
	}
}
