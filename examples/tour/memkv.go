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
)

func init() {
	sections = append(sections, section{order: 70, name: "memkv",
		title: "an ordered multi-version store: optimistic commits, change feed, GC", run: tourMemkv})
}

func tourMemkv(w io.Writer) error {
	ctx := context.Background()
	s, err := memkv.New(memkv.Config{HistoryVersions: 100, CheckpointEvery: 64, GCStep: -1})
	if err != nil {
		return err
	}
	const accounts, workers, each = 16, 4, 500
	init := &memkv.CommitRequest{}
	for i := range accounts {
		init.Sets = append(init.Sets, []byte(fmt.Sprintf("acct/%02d", i)), []byte("100"))
	}
	if _, err := s.Commit(ctx, init); err != nil {
		return err
	}
	sub := s.Subscribe()
	defer sub.Close()

	st0 := s.Stats() // the figures are the transfers', not the seeding commit's
	start := time.Now()
	if err := memkvTransfers(ctx, s, workers, each, accounts); err != nil {
		return err
	}
	el := time.Since(start)
	kvs, err := s.Scan(ctx, s.ReadVersion(), []byte("acct/"), []byte("acct0"), 0, false, nil)
	if err != nil {
		return err
	}
	total := 0
	for i := 1; i < len(kvs); i += 2 {
		n, _ := strconv.Atoi(string(kvs[i]))
		total += n
	}
	st := s.Stats()
	fmt.Fprintf(w, "   %d workers x %d transfers over %d accounts: %d commits, %d conflicts caught and %d too-old reads, all retried; %.0f commits/s\n",
		workers, each, accounts, st.Commits-st0.Commits, st.Conflicts-st0.Conflicts, st.TooOld-st0.TooOld,
		float64(st.Commits-st0.Commits)/el.Seconds())
	if total != accounts*100 {
		return fmt.Errorf("memkv: balances sum to %d after the transfers, not %d: an update was lost", total, accounts*100)
	}
	fmt.Fprintf(w, "   sum of balances after the run: %d (started at %d: no update lost)\n", total, accounts*100)

	// The change feed delivered every write in version order.
	writes, ckpts, ordered, err := memkvFeed(sub)
	if err != nil {
		return err
	}
	if !ordered {
		return errors.New("memkv: the change feed delivered writes out of version order")
	}
	fmt.Fprintf(w, "   change feed: %d write events, %d checkpoints, in version order\n", writes, ckpts)

	// GC: reads older than the history window fail with ErrTooOld.
	before := s.Stats().Versions
	s.GC()
	after := s.Stats()
	_, _, err = s.Get(ctx, 1, []byte("acct/00"))
	if err := verify(memkvGCClaims(err)...); err != nil {
		return err
	}
	fmt.Fprintf(w, "   GC with a %d-version window: %d versions held -> %d; a read at version 1 gets %q\n",
		s.Config().HistoryVersions, before, after.Versions, err)
	return nil
}

// memkvGCClaims is what the GC line states: once GC has run, a read at
// version 1, older than the history window, fails with ErrTooOld (err is
// what it returned).
func memkvGCClaims(err error) []claim {
	return []claim{{errors.Is(err, memkv.ErrTooOld),
		fmt.Sprintf("a read at version 1 after GC fails with ErrTooOld, not %v", err)}}
}

// memkvTransfers runs workers goroutines of each transfers between accounts:
// read two balances at a version, write both back; the store rejects a
// commit whose reads were overwritten meanwhile, and the transfer retries.
// Any other error ends the worker and is returned (the first one): the
// section says every failed transfer was retried, and a transfer given up
// keeps the balances' sum, which would not show it.
func memkvTransfers(ctx context.Context, s *memkv.Store, workers, each, accounts int) error {
	var wg sync.WaitGroup
	var first atomic.Pointer[error]
	fail := func(err error) { first.CompareAndSwap(nil, &err) }
	for g := range workers {
		wg.Go(func() {
			for i := range each {
				a := []byte(fmt.Sprintf("acct/%02d", (g+i)%accounts))
				c := []byte(fmt.Sprintf("acct/%02d", (g*5+i*3+1)%accounts))
				if string(a) == string(c) {
					continue
				}
				for {
					rv := s.ReadVersion()
					va, _, err1 := s.Get(ctx, rv, a)
					vc, _, err2 := s.Get(ctx, rv, c)
					for _, err := range []error{err1, err2} {
						if err != nil && !errors.Is(err, memkv.ErrTooOld) {
							fail(fmt.Errorf("memkv: transfer read: %w", err))
							return
						}
					}
					if err1 != nil || err2 != nil {
						continue // ErrTooOld: the history window moved past rv; retry
					}
					runtime.Gosched() // let the other workers interleave
					na, _ := strconv.Atoi(string(va))
					nc, _ := strconv.Atoi(string(vc))
					if na == 0 {
						break
					}
					_, err := s.Commit(ctx, &memkv.CommitRequest{ReadVersion: rv, ReadKeys: [][]byte{a, c},
						Sets: [][]byte{a, []byte(strconv.Itoa(na - 1)), c, []byte(strconv.Itoa(nc + 1))}})
					if err == nil {
						break
					}
					if !errors.Is(err, memkv.ErrConflict) && !errors.Is(err, memkv.ErrTooOld) {
						fail(fmt.Errorf("memkv: transfer commit: %w", err))
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if err := first.Load(); err != nil {
		return *err
	}
	return nil
}

// memkvFeed drains sub and counts its write events and checkpoints, and
// whether the writes came in version order.
func memkvFeed(sub *memkv.Subscription) (writes, ckpts int, ordered bool, err error) {
	last := uint64(0)
	ordered = true
	for {
		e, ok, err := sub.TryNext()
		if err != nil {
			return 0, 0, false, err
		}
		if !ok {
			return writes, ckpts, ordered, nil
		}
		if e.Kind == memkv.EventCheckpoint {
			ckpts++
			continue
		}
		ordered = ordered && e.Version >= last
		last = e.Version
		writes++
	}
}
