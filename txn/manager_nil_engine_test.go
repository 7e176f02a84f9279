package txn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/txn"
)

// TestNewManagerNilEngine: NewManager took a nil Engine and returned a
// Manager whose every Begin panicked with a nil dereference, far from the
// mistake. It is refused at construction now. Found by a review.
func TestNewManagerNilEngine(t *testing.T) {
	var m *txn.Manager
	var err error
	require.NotPanics(t, func() { m, err = txn.NewManager(nil, txn.ManagerConfig{}) })
	require.ErrorIs(t, err, txn.ErrInvalidConfig)
	assert.EqualError(t, err, "txn: nil Engine: invalid config")
	assert.Nil(t, m)
}
