package txn_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// A read-committed transaction without read conflicts "commits at the newest
// version and is never too old" (package doc), even when other commits move
// the horizon past that version while its commit waits for the engine.
func TestReadCommittedWriteOnlyNeverTooOld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore(t, memkv.Config{HistoryVersions: 1, Faults: memkv.Faults{Delay: time.Second}})
		tx := begin(t, s, txn.ReadCommitted)
		require.NoError(t, tx.Put(b("k"), b("v")))
		done := make(chan error, 1)
		go func() { _, err := tx.Commit(context.Background()); done <- err }()
		synctest.Wait() // the commit is in its delay, its read version taken
		for range 3 {
			go func() { _, _ = s.Put(context.Background(), b("other"), b("x")) }()
		}
		require.NoError(t, <-done)
		v, ok, err := s.Get(ctx, s.ReadVersion(), b("k"))
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "v", string(v))
	})
}
