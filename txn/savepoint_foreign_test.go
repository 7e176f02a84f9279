package txn

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// beginReusing begins a transaction on eng that got core c from the pool,
// or returns nil: the pool may drop a core (it does at random under the race
// detector). Each one that got another core is rolled back.
func beginReusing(t *testing.T, eng Engine, c *core) *Tx {
	t.Helper()
	for range 4 {
		tx, err := Begin(eng, Options{})
		require.NoError(t, err)
		if tx.c == c {
			return tx
		}
		tx.Rollback()
	}
	return nil
}

// TestSavepointOfFinishedTxOnReusedCore: a Savepoint kept from a finished
// transaction is not one of the transaction that reuses its buffers. The
// generation numbering savepoints restarted with each reuse of a core, so
// B's first savepoint equalled A's and B.RollbackTo(spA) undid B's writes.
func TestSavepointOfFinishedTxOnReusedCore(t *testing.T) {
	ctx := context.Background()
	eng, err := memkv.New(memkv.Config{})
	require.NoError(t, err)
	for _, end := range []string{"rollback", "commit"} {
		t.Run(end, func(t *testing.T) {
			var a, b *Tx
			var spA Savepoint
			for range 100 {
				a, err = Begin(eng, Options{})
				require.NoError(t, err)
				spA, err = a.Savepoint()
				require.NoError(t, err)
				require.NoError(t, a.Put([]byte("a"), []byte("1")))
				c := a.c
				if end == "rollback" {
					a.Rollback()
				} else {
					_, err = a.Commit(ctx)
					require.NoError(t, err)
				}
				if b = beginReusing(t, eng, c); b != nil {
					break
				}
			}
			if b == nil {
				t.Skip("the pool never handed A's core back")
			}
			defer b.Rollback()
			require.NoError(t, b.Put([]byte("k"), []byte("1")))
			_, err = b.Savepoint()
			require.NoError(t, err)
			require.NoError(t, b.Put([]byte("k"), []byte("2")))
			require.NoError(t, b.Put([]byte("x"), []byte("2")))
			used := b.MemoryUsed()

			assert.ErrorIs(t, b.RollbackTo(spA), ErrNoSavepoint)
			assert.ErrorIs(t, b.Release(spA), ErrNoSavepoint)
			assert.Equal(t, used, b.MemoryUsed(), "nothing refunded")
			for k, want := range map[string]string{"k": "2", "x": "2"} {
				v, ok, err := b.Get(ctx, []byte(k))
				require.NoError(t, err)
				assert.True(t, ok, k)
				assert.Equal(t, want, string(v), k)
			}
			assert.ErrorIs(t, a.RollbackTo(spA), ErrDone, "A is over")
		})
	}
}

// TestSavepointOfAnotherLiveTx: two transactions open at once, each with
// its own buffers, do not accept each other's savepoints either.
func TestSavepointOfAnotherLiveTx(t *testing.T) {
	ctx := context.Background()
	eng, err := memkv.New(memkv.Config{})
	require.NoError(t, err)
	a, err := Begin(eng, Options{})
	require.NoError(t, err)
	defer a.Rollback()
	b, err := Begin(eng, Options{})
	require.NoError(t, err)
	defer b.Rollback()
	spA, err := a.Savepoint()
	require.NoError(t, err)
	_, err = b.Savepoint()
	require.NoError(t, err)
	require.NoError(t, b.Put([]byte("k"), []byte("1")))

	assert.ErrorIs(t, b.RollbackTo(spA), ErrNoSavepoint)
	v, ok, err := b.Get(ctx, []byte("k"))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "1", string(v))
	require.NoError(t, a.RollbackTo(spA), "A's own savepoint")
}

// TestSavepointAllocatesNothing: naming the transaction in its savepoints
// adds no allocation to a savepoint, rollback and release.
func TestSavepointAllocatesNothing(t *testing.T) {
	eng, err := memkv.New(memkv.Config{})
	require.NoError(t, err)
	tx, err := Begin(eng, Options{})
	require.NoError(t, err)
	defer tx.Rollback()
	k, v := []byte("k"), []byte("v")
	require.NoError(t, tx.Put(k, v))
	allocs := testing.AllocsPerRun(100, func() {
		sp, err := tx.Savepoint()
		require.NoError(t, err)
		require.NoError(t, tx.Put(k, v))
		require.NoError(t, tx.RollbackTo(sp))
		require.NoError(t, tx.Release(sp))
	})
	assert.Zero(t, allocs)
}
