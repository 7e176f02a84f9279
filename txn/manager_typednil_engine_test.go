package txn_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/txn"
)

// ptrEngine is an Engine whose methods read its fields: a nil *ptrEngine
// panics on the first call.
type ptrEngine struct{ version uint64 }

func (e *ptrEngine) ReadVersion() uint64 { return e.version }
func (e *ptrEngine) Get(context.Context, uint64, []byte) ([]byte, bool, error) {
	return nil, false, nil
}
func (e *ptrEngine) Scan(_ context.Context, _ uint64, _, _ []byte, _ int, _ bool, dst [][]byte) ([][]byte, error) {
	return dst, nil
}
func (e *ptrEngine) Commit(context.Context, *txn.CommitRequest) (uint64, error) {
	return e.version, nil
}

// TestNewManagerTypedNilEngine: NewManager refused a nil Engine but took an
// Engine holding a nil pointer (a *Store variable never assigned), and every
// Begin then panicked with a nil dereference inside the engine, on a
// request's path far from the mistake. It is refused at construction now, as
// the untyped nil is.
func TestNewManagerTypedNilEngine(t *testing.T) {
	var eng *ptrEngine
	var m *txn.Manager
	var err error
	require.NotPanics(t, func() { m, err = txn.NewManager(eng, txn.ManagerConfig{}) })
	require.ErrorIs(t, err, txn.ErrInvalidConfig)
	assert.EqualError(t, err, "txn: nil Engine (a nil *txn_test.ptrEngine): invalid config")
	assert.Nil(t, m)

	// A non-nil one is taken.
	m, err = txn.NewManager(&ptrEngine{version: 1}, txn.ManagerConfig{})
	require.NoError(t, err)
	_, err = m.Begin(txn.Options{})
	require.NoError(t, err)
}
