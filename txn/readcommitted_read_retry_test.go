package txn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// racingVersions is a store with a history window of one version whose
// ReadVersion, while races > 0, lets two blind writes commit after taking
// the version and before returning it: the version it returns is then
// behind the horizon, as when commits land between a read-committed
// transaction taking its read version and reading at it.
type racingVersions struct {
	*memkv.Store
	t     *testing.T
	races int // ReadVersion calls still to race with two commits
	calls int // ReadVersion calls
}

func (e *racingVersions) ReadVersion() uint64 {
	e.calls++
	v := e.Store.ReadVersion()
	if e.races > 0 {
		e.races--
		for range 2 {
			_, err := e.Store.Put(ctx, b("other"), b("x"))
			require.NoError(e.t, err)
		}
	}
	return v
}

func newRacing(t *testing.T) *racingVersions {
	s := newStore(t, memkv.Config{HistoryVersions: 1})
	_, err := s.Put(ctx, b("k"), b("v"))
	require.NoError(t, err)
	return &racingVersions{Store: s, t: t}
}

// reads are a point read and range reads, forward and reverse, with and
// without a limit, each expecting the key "k" written by newRacing.
var rcReads = map[string]func(*txn.Tx) (string, error){
	"get": func(tx *txn.Tx) (string, error) {
		v, _, err := tx.Get(ctx, b("k"))
		return string(v), err
	},
	"range": func(tx *txn.Tx) (string, error) {
		kvs, err := tx.GetRange(ctx, b("a"), b("l"), 0, false)
		if len(kvs) != 1 {
			return "", err
		}
		return string(kvs[0].Value), err
	},
	"range reverse limit": func(tx *txn.Tx) (string, error) {
		kvs, err := tx.GetRange(ctx, b("a"), b("l"), 1, true)
		if len(kvs) != 1 {
			return "", err
		}
		return string(kvs[0].Value), err
	},
	"snapshot get": func(tx *txn.Tx) (string, error) {
		v, _, err := tx.Snapshot().Get(ctx, b("k"))
		return string(v), err
	},
}

// TestReadCommittedReadRetriesTooOld: under ReadCommitted each read takes
// the newest version, and a commit that moved the horizon past it before
// the read ended the transaction with ErrTooOld (dropping its writes),
// although nothing needs that version: the read now retries at a fresh one.
func TestReadCommittedReadRetriesTooOld(t *testing.T) {
	for name, read := range rcReads {
		t.Run(name, func(t *testing.T) {
			eng := newRacing(t)
			tx := begin(t, eng, txn.ReadCommitted)
			require.NoError(t, tx.Put(b("mine"), b("w")))
			eng.races = 1
			got, err := read(tx)
			require.NoError(t, err)
			assert.Equal(t, "v", got)
			assert.Equal(t, uint64(1), eng.Stats().TooOld, "the engine counts the refused attempt")
			_, err = tx.Commit(ctx)
			require.NoError(t, err, "the transaction and its write survive")
			v, ok, err := eng.Get(ctx, eng.Store.ReadVersion(), b("mine"))
			require.NoError(t, err)
			assert.True(t, ok)
			assert.Equal(t, "w", string(v))
		})
	}
}

// TestReadCommittedReadTooOldIsBounded: a read that loses the race every
// time gives up after three retries with ErrTooOld, which ends the
// transaction as before.
func TestReadCommittedReadTooOldIsBounded(t *testing.T) {
	for name, read := range rcReads {
		t.Run(name, func(t *testing.T) {
			eng := newRacing(t)
			tx := begin(t, eng, txn.ReadCommitted)
			eng.races, eng.calls = 100, 0
			_, err := read(tx)
			require.ErrorIs(t, err, txn.ErrTooOld)
			assert.Equal(t, 4, eng.calls, "one read version per attempt: the first and three retries")
			assert.ErrorIs(t, tx.Put(b("k"), b("w")), txn.ErrDone)
		})
	}
}

// TestSnapshotReadTooOldNotRetried: the other levels read at the version
// at Begin, which no retry can bring back: a read behind the horizon fails
// at once with ErrTooOld and ends the transaction.
func TestSnapshotReadTooOldNotRetried(t *testing.T) {
	for _, iso := range []txn.Isolation{txn.Serializable, txn.Snapshot} {
		for name, read := range rcReads {
			t.Run(iso.String()+"/"+name, func(t *testing.T) {
				eng := newRacing(t)
				tx := begin(t, eng, iso)
				for range 2 {
					_, err := eng.Put(ctx, b("other"), b("x"))
					require.NoError(t, err)
				}
				eng.calls = 0
				_, err := read(tx)
				require.ErrorIs(t, err, txn.ErrTooOld)
				assert.Zero(t, eng.calls, "no fresh read version taken")
				assert.ErrorIs(t, tx.Put(b("k"), b("w")), txn.ErrDone)
			})
		}
	}
}

// TestManagerReadCommittedRetriedReadStats: a Manager counts a transaction
// whose read was made again at a fresh version as what it ended as
// (committed), and one whose read gave up as failed; neither is a commit
// failed with ErrTooOld.
func TestManagerReadCommittedRetriedReadStats(t *testing.T) {
	eng := newRacing(t)
	m, err := txn.NewManager(eng, txn.ManagerConfig{})
	require.NoError(t, err)
	for _, races := range []int{1, 100} {
		id, err := m.Begin(txn.Options{Isolation: txn.ReadCommitted})
		require.NoError(t, err)
		require.NoError(t, m.Put(id, b("mine"), b("w")))
		eng.races = races
		if _, _, err = m.Get(ctx, id, b("k")); err == nil {
			_, err = m.Commit(ctx, id)
		}
		eng.races = 0
		require.Equal(t, races == 1, err == nil, "races %d: %v", races, err)
	}
	require.Equal(t, txn.ManagerStats{Begun: 2, Committed: 1, Failed: 1}, m.Stats())
}
