package txn_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

func TestRunRetriesConflicts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore(t, memkv.Config{})
		seed(t, s, "n", "0")
		const workers, each = 4, 25
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for range each {
					_, err := txn.Run(ctx, s, txn.Options{}, txn.RetryPolicy{MaxAttempts: 1000, MaxElapsed: time.Hour},
						func(tx *txn.Tx) error {
							v, _, err := tx.Get(ctx, b("n"))
							if err != nil {
								return err
							}
							n, _ := strconv.Atoi(string(v))
							return tx.Put(b("n"), strconv.AppendInt(nil, int64(n+1), 10))
						})
					assert.NoError(t, err)
				}
			})
		}
		wg.Wait()
		v, _, err := s.Get(ctx, s.ReadVersion(), b("n"))
		require.NoError(t, err)
		assert.Equal(t, "100", string(v), "no lost update")
	})
}

func TestRunNeverBlindlyRetriesUnknown(t *testing.T) {
	drops := 1
	s := newStore(t, memkv.Config{Faults: memkv.Faults{DropReply: func(*memkv.CommitRequest) bool {
		drops--
		return drops >= 0
	}}})
	calls := 0
	incr := func(tx *txn.Tx) error {
		calls++
		v, _, err := tx.Get(ctx, b("n"))
		if err != nil {
			return err
		}
		return tx.Put(b("n"), append(v, 'x'))
	}
	_, err := txn.Run(ctx, s, txn.Options{}, txn.RetryPolicy{}, incr)
	assert.ErrorIs(t, err, txn.ErrCommitUnknown, "no idempotency key: reported, not retried")
	assert.Equal(t, 1, calls)

	drops, calls = 1, 0
	v, err := txn.Run(ctx, s, txn.Options{IdempotencyKey: b("req-7")}, txn.RetryPolicy{}, incr)
	require.NoError(t, err)
	assert.Equal(t, 2, calls, "retried once; the engine deduplicated the retry")
	assert.Equal(t, uint64(2), v, "the version of the first, applied attempt")
	got, _, _ := s.Get(ctx, s.ReadVersion(), b("n"))
	assert.Equal(t, "xx", string(got), "applied exactly once per Run")
}

func TestRunBudgets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore(t, memkv.Config{Faults: memkv.Faults{FailBeforeCommit: func(*memkv.CommitRequest) bool { return true }}})
		put := func(tx *txn.Tx) error { return tx.Put(b("k"), b("v")) }
		start := time.Now()
		_, err := txn.Run(ctx, s, txn.Options{}, txn.RetryPolicy{MaxAttempts: 5}, put)
		assert.ErrorIs(t, err, txn.ErrRetriesExhausted)
		assert.ErrorIs(t, err, txn.ErrTransient)
		assert.Equal(t, uint64(5), s.Stats().Injected)
		assert.LessOrEqual(t, time.Since(start), 15*time.Millisecond, "backoff ceilings 1+2+4+8 ms")

		_, err = txn.Run(ctx, s, txn.Options{}, txn.RetryPolicy{MaxAttempts: 1000, BaseBackoff: time.Second, MaxBackoff: time.Second, MaxElapsed: 10 * time.Second}, put)
		assert.ErrorIs(t, err, txn.ErrRetriesExhausted)
		assert.Less(t, s.Stats().Injected, uint64(1005), "the time budget stops it")

		c, cancel := context.WithCancel(ctx)
		cancel()
		_, err = txn.Run(c, s, txn.Options{}, txn.RetryPolicy{}, put)
		assert.ErrorIs(t, err, context.Canceled)

		appErr := errors.New("app")
		_, err = txn.Run(ctx, s, txn.Options{}, txn.RetryPolicy{}, func(*txn.Tx) error { return appErr })
		assert.Equal(t, appErr, err)
		_, err = txn.Run(ctx, s, txn.Options{}, txn.RetryPolicy{MaxAttempts: -1}, put)
		assert.EqualError(t, err, "txn: RetryPolicy.MaxAttempts -1 is negative: invalid config")
	})
}

// A valid policy (BaseBackoff <= MaxBackoff, enough attempts and time) must
// not make Run panic: BaseBackoff<<(attempt-1) overflows int64 for a base of
// about 8.6 s or more once attempt-1 reaches 30.
func TestRunLongBackoffNoOverflow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore(t, memkv.Config{})
		pol := txn.RetryPolicy{MaxAttempts: 40, MaxElapsed: 1000 * time.Hour,
			BaseBackoff: 10 * time.Second, MaxBackoff: 10 * time.Second}
		attempts := 0
		var err error
		func() {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panic after %d attempts: %v", attempts, p)
				}
			}()
			_, err = txn.Run(ctx, s, txn.Options{}, pol, func(tx *txn.Tx) error {
				attempts++
				return txn.ErrTransient // retryable
			})
		}()
		if !errors.Is(err, txn.ErrRetriesExhausted) || attempts != 40 {
			t.Fatalf("Run: attempts=%d err=%v; want 40 attempts and ErrRetriesExhausted", attempts, err)
		}
	})
}

// A policy without a cap on the backoff (MaxBackoff at the largest
// duration) is valid and must not make Run panic: the wait drawn below a
// ceiling of math.MaxInt64 must not compute ceiling+1, and adding it to the
// elapsed time must not wrap around past MaxElapsed.
func TestRunUncappedBackoffNoOverflow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore(t, memkv.Config{})
		pol := txn.RetryPolicy{MaxAttempts: 3, MaxElapsed: time.Hour,
			BaseBackoff: math.MaxInt64, MaxBackoff: math.MaxInt64}
		attempts := 0
		var err error
		start := time.Now()
		func() {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panic after %d attempts: %v", attempts, p)
				}
			}()
			_, err = txn.Run(ctx, s, txn.Options{}, pol, func(tx *txn.Tx) error {
				attempts++
				time.Sleep(time.Minute) // virtual: the attempt takes a while
				return txn.ErrTransient
			})
		}()
		require.ErrorIs(t, err, txn.ErrRetriesExhausted)
		assert.LessOrEqual(t, time.Since(start), time.Hour+time.Minute, "MaxElapsed bounds the backoff")
	})
}

// Once an attempt's commit outcome is unknown, Run retries it under its
// idempotency key; if Run then ends without learning the outcome (the
// context ends during the backoff or the retry, or the re-run fn fails), the
// caller must still be told that the transaction may have committed, not
// only why the retry stopped.
func TestRunReportsAnEarlierUnknownOutcome(t *testing.T) {
	appErr := errors.New("app: balance too low")
	for _, tc := range []struct {
		name         string
		cancelOnDrop bool  // the caller gives up as the reply is lost: Run's backoff ends
		cancelInFn   bool  // the caller gives up during the retry: its commit ends
		fnErr        error // the retry's fn fails
	}{
		{name: "context ends in the backoff", cancelOnDrop: true},
		{name: "context ends in the retry", cancelInFn: true},
		{name: "fn fails", fnErr: appErr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, cancel := context.WithCancel(ctx)
				defer cancel()
				drops := 1
				s := newStore(t, memkv.Config{Faults: memkv.Faults{DropReply: func(*memkv.CommitRequest) bool {
					drops--
					if drops >= 0 && tc.cancelOnDrop {
						cancel()
					}
					return drops >= 0
				}}})
				calls := 0
				_, err := txn.Run(c, s, txn.Options{IdempotencyKey: b("req-1")}, txn.RetryPolicy{}, func(tx *txn.Tx) error {
					calls++
					if calls > 1 {
						if tc.cancelInFn {
							cancel()
						}
						if tc.fnErr != nil {
							return tc.fnErr
						}
					}
					return tx.Put(b("k"), b("v"))
				})
				require.Error(t, err)
				assert.ErrorIs(t, err, txn.ErrCommitUnknown, "the first attempt was applied; got %v", err)
				if tc.fnErr != nil {
					assert.ErrorIs(t, err, tc.fnErr, "fn's error is kept")
				}
				got, _, _ := s.Get(ctx, s.ReadVersion(), b("k"))
				assert.Equal(t, "v", string(got))
			})
		})
	}
}

// A panic in fn propagates out of Run without a retry, and ends the
// attempt's transaction: it was left open, so whoever recovered the panic
// could still write through it and commit half of fn's work.
func TestRunPanicRollsBackTheAttempt(t *testing.T) {
	s := newStore(t, memkv.Config{})
	var held *txn.Tx
	calls := 0
	func() {
		defer func() { assert.Equal(t, "boom", recover()) }()
		_, _ = txn.Run(ctx, s, txn.Options{}, txn.RetryPolicy{}, func(tx *txn.Tx) error {
			calls++
			held = tx
			if err := tx.Put(b("k"), b("half")); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	assert.Equal(t, 1, calls)
	require.NotNil(t, held)
	assert.ErrorIs(t, held.Put(b("k2"), b("v")), txn.ErrDone)
	_, err := held.Commit(ctx)
	assert.ErrorIs(t, err, txn.ErrDone)
	_, found, _ := s.Get(ctx, s.ReadVersion(), b("k"))
	assert.False(t, found)
}
