package txn_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

var (
	_   txn.Engine = (*memkv.Store)(nil)
	ctx            = context.Background()
)

func newStore(t testing.TB, cfg memkv.Config) *memkv.Store {
	t.Helper()
	s, err := memkv.New(cfg)
	require.NoError(t, err)
	return s
}

func b(s string) []byte { return []byte(s) }

func begin(t testing.TB, s txn.Engine, iso txn.Isolation) *txn.Tx {
	t.Helper()
	tx, err := txn.Begin(s, txn.Options{Isolation: iso})
	require.NoError(t, err)
	return tx
}

func get(t testing.TB, tx *txn.Tx, k string) string {
	t.Helper()
	v, ok, err := tx.Get(ctx, b(k))
	require.NoError(t, err)
	if !ok {
		return "<none>"
	}
	return string(v)
}

func keysOf(kvs []txn.KV) []string {
	out := []string{}
	for _, kv := range kvs {
		out = append(out, string(kv.Key)+"="+string(kv.Value))
	}
	return out
}

func seed(t testing.TB, s *memkv.Store, kv ...string) {
	t.Helper()
	req := &memkv.CommitRequest{ReadVersion: s.ReadVersion()}
	for i := 0; i+1 < len(kv); i += 2 {
		req.Sets = append(req.Sets, b(kv[i]), b(kv[i+1]))
	}
	_, err := s.Commit(ctx, req)
	require.NoError(t, err)
}

func TestReadYourWrites(t *testing.T) {
	s := newStore(t, memkv.Config{})
	seed(t, s, "a", "1", "b", "2", "c", "3", "d", "4")
	tx := begin(t, s, 0)
	require.NoError(t, tx.Put(b("b"), b("20")))
	require.NoError(t, tx.Delete(b("c")))
	require.NoError(t, tx.Put(b("bb"), b("new")))
	assert.Equal(t, "20", get(t, tx, "b"))
	assert.Equal(t, "<none>", get(t, tx, "c"))
	kvs, err := tx.GetRange(ctx, b("a"), nil, 0, false)
	require.NoError(t, err)
	assert.Equal(t, []string{"a=1", "b=20", "bb=new", "d=4"}, keysOf(kvs))
	kvs, err = tx.GetRange(ctx, b("a"), b("d"), 2, true)
	require.NoError(t, err)
	assert.Equal(t, []string{"bb=new", "b=20"}, keysOf(kvs))
	require.NoError(t, tx.DeleteRange(b("b"), b("c\x00")))
	require.NoError(t, tx.Put(b("c"), b("back")))
	kvs, err = tx.GetRange(ctx, nil, nil, 0, false)
	require.NoError(t, err)
	assert.Equal(t, []string{"a=1", "c=back", "d=4"}, keysOf(kvs))
	v, err := tx.Commit(ctx)
	require.NoError(t, err)
	assert.Equal(t, v, tx.CommitVersion())
	kvs2, err := s.Scan(ctx, v, nil, nil, 0, false, nil)
	require.NoError(t, err)
	assert.Len(t, kvs2, 6, "a, c, d")
	_, err = tx.Commit(ctx)
	assert.ErrorIs(t, err, txn.ErrDone)
}

func TestSavepoints(t *testing.T) {
	s := newStore(t, memkv.Config{})
	seed(t, s, "k", "0")
	tx := begin(t, s, 0)
	require.NoError(t, tx.Put(b("k"), b("1")))
	sp1, err := tx.Savepoint()
	require.NoError(t, err)
	require.NoError(t, tx.Put(b("k"), b("2")))
	require.NoError(t, tx.Put(b("x"), b("2")))
	sp2, err := tx.Savepoint()
	require.NoError(t, err)
	require.NoError(t, tx.DeleteRange(nil, nil))
	assert.Equal(t, "<none>", get(t, tx, "k"))
	require.NoError(t, tx.RollbackTo(sp2))
	assert.Equal(t, "2", get(t, tx, "k"))
	require.NoError(t, tx.RollbackTo(sp1))
	assert.Equal(t, "1", get(t, tx, "k"))
	assert.Equal(t, "<none>", get(t, tx, "x"))
	assert.ErrorIs(t, tx.RollbackTo(sp2), txn.ErrNoSavepoint, "rolled past")
	require.NoError(t, tx.Put(b("y"), b("3")))
	require.NoError(t, tx.Release(sp1))
	assert.ErrorIs(t, tx.Release(sp1), txn.ErrNoSavepoint)
	_, err = tx.Commit(ctx)
	require.NoError(t, err)
	got, _, _ := s.Get(ctx, s.ReadVersion(), b("y"))
	assert.Equal(t, "3", string(got))
}

func TestCommitErrors(t *testing.T) {
	s := newStore(t, memkv.Config{HistoryVersions: 2})
	seed(t, s, "k", "0", "r1", "x")

	tx := begin(t, s, 0)
	get(t, tx, "k")
	_, err := tx.GetRange(ctx, b("r"), b("s"), 0, false)
	require.NoError(t, err)
	require.NoError(t, tx.Put(b("out"), b("1")))
	seed(t, s, "k", "1", "r2", "y")
	_, err = tx.Commit(ctx)
	var ce *txn.ConflictError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, [][]byte{b("k")}, ce.Keys)
	assert.Equal(t, [][]byte{b("r"), b("s")}, ce.Ranges)
	assert.ErrorIs(t, err, txn.ErrConflict)
	assert.True(t, txn.Retryable(err))

	tx = begin(t, s, 0)
	get(t, tx, "y") // a read to validate: a commit without one is never too old
	require.NoError(t, tx.Put(b("z"), b("1")))
	seed(t, s, "a", "1")
	seed(t, s, "a", "2")
	seed(t, s, "a", "3")
	_, err = tx.Commit(ctx)
	assert.ErrorIs(t, err, txn.ErrTooOld)

	tx, err = txn.Begin(s, txn.Options{MemoryBudget: 100})
	require.NoError(t, err)
	assert.ErrorIs(t, tx.Put(b("k"), make([]byte, 200)), txn.ErrTooLarge)
	require.NoError(t, tx.Put(b("k"), b("small")), "the transaction stays usable")

	require.NoError(t, s.SetConfig(memkv.Config{HistoryVersions: 2, MaxCommitBytes: 4}))
	tx = begin(t, s, 0)
	require.NoError(t, tx.Put(b("key"), b("value")))
	_, err = tx.Commit(ctx)
	assert.ErrorIs(t, err, txn.ErrTooLarge)

	require.NoError(t, s.SetConfig(memkv.Config{Faults: memkv.Faults{FailBeforeCommit: func(*memkv.CommitRequest) bool { return true }}}))
	tx = begin(t, s, 0)
	require.NoError(t, tx.Put(b("key"), b("value")))
	_, err = tx.Commit(ctx)
	assert.ErrorIs(t, err, txn.ErrTransient)
	assert.True(t, txn.Retryable(err))
}

func TestDeadline(t *testing.T) {
	s := newStore(t, memkv.Config{})
	tx, err := txn.Begin(s, txn.Options{Deadline: time.Now().Add(-time.Second)})
	require.NoError(t, err)
	_, _, err = tx.Get(ctx, b("k"))
	assert.ErrorIs(t, err, txn.ErrDeadline)
	assert.ErrorIs(t, tx.Put(b("k"), nil), txn.ErrDone)
	_, err = txn.Begin(s, txn.Options{Isolation: 9})
	assert.EqualError(t, err, "txn: unknown Isolation 9: invalid config")
}

func TestSnapshotReadsDoNotConflict(t *testing.T) {
	s := newStore(t, memkv.Config{})
	seed(t, s, "k", "0")
	tx := begin(t, s, 0)
	_, _, err := tx.Snapshot().Get(ctx, b("k"))
	require.NoError(t, err)
	_, err = tx.Snapshot().GetRange(ctx, nil, nil, 0, false)
	require.NoError(t, err)
	require.NoError(t, tx.Put(b("other"), b("1")))
	seed(t, s, "k", "1", "j", "1")
	_, err = tx.Commit(ctx)
	assert.NoError(t, err)
}

func TestExplicitConflictRanges(t *testing.T) {
	s := newStore(t, memkv.Config{})
	reader := begin(t, s, txn.Snapshot)
	require.NoError(t, reader.AddReadConflictRange(b("lock/"), b("lock0")))
	require.NoError(t, reader.Put(b("x"), b("1")))
	writer := begin(t, s, 0)
	require.NoError(t, writer.AddWriteConflictKey(b("lock/a")))
	require.NoError(t, writer.Put(b("y"), b("1")))
	_, err := writer.Commit(ctx)
	require.NoError(t, err)
	_, err = reader.Commit(ctx)
	assert.ErrorIs(t, err, txn.ErrConflict)

	tx := begin(t, s, 0)
	require.NoError(t, tx.AddReadConflictKey(b("k")))
	require.NoError(t, tx.Put(b("z"), b("1")))
	seed(t, s, "k", "1")
	_, err = tx.Commit(ctx)
	assert.ErrorIs(t, err, txn.ErrConflict)
}

func TestReadSetMergesUnderBudget(t *testing.T) {
	s := newStore(t, memkv.Config{})
	tx, err := txn.Begin(s, txn.Options{MemoryBudget: 4000})
	require.NoError(t, err)
	for i := range 200 {
		_, _, err := tx.Get(ctx, b(fmt.Sprintf("k%03d", i)))
		require.NoError(t, err, "read %d", i)
	}
	assert.Positive(t, tx.ReadSetMerges())
	assert.LessOrEqual(t, tx.MemoryUsed(), 4000)
	req := tx.Request()
	// Every read is still covered by some range: none silently dropped.
	for i := range 200 {
		k := fmt.Sprintf("k%03d", i)
		covered := false
		for j := 0; j < len(req.ReadRanges); j += 2 {
			if string(req.ReadRanges[j]) <= k && (req.ReadRanges[j+1] == nil || k < string(req.ReadRanges[j+1])) {
				covered = true
			}
		}
		for _, rk := range req.ReadKeys {
			covered = covered || string(rk) == k
		}
		require.True(t, covered, k)
	}
	require.NoError(t, tx.Put(b("w"), b("1")))
	seed(t, s, "k150", "changed")
	_, err = tx.Commit(ctx)
	assert.ErrorIs(t, err, txn.ErrConflict, "the merged range still catches the conflict")
	assert.True(t, errors.Is(err, txn.ErrConflict))
}

// TestWriteBufferAcrossChunks writes enough (and one value bigger than a
// chunk) to span many arena chunks, overwrites some keys, and checks every
// value read back, in a range read and in the commit.
func TestWriteBufferAcrossChunks(t *testing.T) {
	s := newStore(t, memkv.Config{})
	tx := begin(t, s, 0)
	val := func(i, gen int) []byte { return bytes.Repeat([]byte{byte('a' + (i+gen)%26)}, 10+i%200) }
	big := bytes.Repeat([]byte("x"), 100<<10)
	require.NoError(t, tx.Put(b("big"), big))
	held, _, _ := tx.Get(ctx, b("big"))
	for i := range 2000 {
		require.NoError(t, tx.Put([]byte(fmt.Sprintf("k%05d", i)), val(i, 0)))
	}
	for i := 0; i < 2000; i += 3 {
		require.NoError(t, tx.Put([]byte(fmt.Sprintf("k%05d", i)), val(i, 1)))
	}
	want := func(i int) []byte {
		if i%3 == 0 {
			return val(i, 1)
		}
		return val(i, 0)
	}
	for i := range 2000 {
		v, ok, err := tx.Get(ctx, []byte(fmt.Sprintf("k%05d", i)))
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, want(i), v, "key %d", i)
	}
	kvs, err := tx.GetRange(ctx, b("k"), b("l"), 0, false)
	require.NoError(t, err)
	require.Len(t, kvs, 2000)
	for i, kv := range kvs {
		require.Equal(t, want(i), kv.Value)
	}
	_, err = tx.Commit(ctx)
	require.NoError(t, err)
	assert.Equal(t, big, held, "values handed out stay valid after the commit")
	got, _, _ := s.Get(ctx, s.ReadVersion(), b("k01998"))
	assert.Equal(t, want(1998), got)
}

// TestHandedOutValuesSurviveBufferReuse: a finished transaction's buffers go
// back to a pool, but never the bytes a caller was given.
func TestHandedOutValuesSurviveBufferReuse(t *testing.T) {
	s := newStore(t, memkv.Config{})
	tx := begin(t, s, 0)
	require.NoError(t, tx.Put(b("k"), b("mine")))
	require.NoError(t, tx.Put(b("r1"), b("ranged")))
	held, _, err := tx.Get(ctx, b("k"))
	require.NoError(t, err)
	kvs, err := tx.GetRange(ctx, b("r"), b("s"), 0, false)
	require.NoError(t, err)
	tx.Rollback()
	for i := range 200 {
		other := begin(t, s, 0)
		for j := range 20 {
			require.NoError(t, other.Put([]byte(fmt.Sprintf("x%d-%d", i, j)), []byte("overwrite-overwrite")))
		}
		if i%2 == 0 {
			other.Rollback()
		} else {
			_, err := other.Commit(ctx)
			require.NoError(t, err)
		}
	}
	assert.Equal(t, "mine", string(held))
	assert.Equal(t, []string{"r1=ranged"}, keysOf(kvs))
}

// AddReadConflictKey: "makes the commit fail if key was written after the read
// version, as if the transaction had read it (at any isolation level)".
func TestExplicitReadConflictEveryIsolation(t *testing.T) {
	for _, iso := range []txn.Isolation{txn.Serializable, txn.Snapshot, txn.ReadCommitted} {
		t.Run(iso.String(), func(t *testing.T) {
			s := newStore(t, memkv.Config{})
			seed(t, s, "k", "0")
			tx := begin(t, s, iso)
			if err := tx.AddReadConflictKey(b("k")); err != nil {
				t.Fatal(err)
			}
			if err := tx.Put(b("other"), b("x")); err != nil {
				t.Fatal(err)
			}
			seed(t, s, "k", "1") // written after tx's read version
			if _, err := tx.Commit(ctx); !errors.Is(err, txn.ErrConflict) {
				t.Errorf("%v: Commit = %v, want a conflict on k (read version %d)", iso, err, tx.ReadVersion())
			}
		})
	}
}

// TestReadOnlyExplicitConflict: a transaction without writes that added an
// explicit read conflict fails its commit when the key was written after its
// read version (it used to commit without asking the engine); without one it
// still commits without the engine.
func TestReadOnlyExplicitConflict(t *testing.T) {
	for _, iso := range []txn.Isolation{txn.Serializable, txn.Snapshot, txn.ReadCommitted} {
		t.Run(iso.String(), func(t *testing.T) {
			s := newStore(t, memkv.Config{})
			seed(t, s, "k", "0")
			tx := begin(t, s, iso)
			require.NoError(t, tx.AddReadConflictKey(b("k")))
			plain := begin(t, s, iso)
			seed(t, s, "k", "1")
			_, err := tx.Commit(ctx)
			assert.ErrorIs(t, err, txn.ErrConflict)
			_, err = plain.Commit(ctx)
			assert.NoError(t, err)
		})
	}
}

// An operation refused with ErrTooLarge by the memory budget leaves the
// transaction usable, as documented; ErrTooLarge from the engine at commit
// ends it.
func TestTooLargeOperationLeavesTheTransactionUsable(t *testing.T) {
	s := newStore(t, memkv.Config{MaxCommitBytes: 100})
	tx, err := txn.Begin(s, txn.Options{MemoryBudget: 200})
	require.NoError(t, err)
	require.ErrorIs(t, tx.Put(b("big"), make([]byte, 300)), txn.ErrTooLarge)
	require.NoError(t, tx.Put(b("k"), b("v")))
	assert.Equal(t, "v", get(t, tx, "k"))
	_, err = tx.Commit(ctx)
	require.NoError(t, err)

	tx, err = txn.Begin(s, txn.Options{})
	require.NoError(t, err)
	require.NoError(t, tx.Put(b("big"), make([]byte, 300)))
	_, err = tx.Commit(ctx)
	require.ErrorIs(t, err, txn.ErrTooLarge)
	assert.ErrorIs(t, tx.Put(b("k"), nil), txn.ErrDone)
}
