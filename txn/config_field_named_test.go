package txn_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// TestConfigErrorsNameFieldAndValue: a negative ManagerConfig or RetryPolicy
// field was refused with "fields must not be negative", which named neither
// the field nor the value, so an operator with several fields set could not
// tell which one to fix. Found by a review.
func TestConfigErrorsNameFieldAndValue(t *testing.T) {
	s := newStore(t, memkv.Config{})
	m, err := txn.NewManager(s, txn.ManagerConfig{})
	require.NoError(t, err)
	for _, tt := range []struct {
		give txn.ManagerConfig
		want string
	}{
		{txn.ManagerConfig{IdleTimeout: -time.Second}, "txn: ManagerConfig.IdleTimeout -1s is negative: invalid config"},
		{txn.ManagerConfig{MaxAge: -2}, "txn: ManagerConfig.MaxAge -2ns is negative: invalid config"},
		{txn.ManagerConfig{MaxTxns: -3}, "txn: ManagerConfig.MaxTxns -3 is negative: invalid config"},
		{txn.ManagerConfig{TxBudget: -4}, "txn: ManagerConfig.TxBudget -4 is negative: invalid config"},
		{txn.ManagerConfig{MaxTxns: 7, TotalBudget: -5}, "txn: ManagerConfig.TotalBudget -5 is negative: invalid config"},
	} {
		_, err := txn.NewManager(s, tt.give)
		require.ErrorIs(t, err, txn.ErrInvalidConfig)
		assert.EqualError(t, err, tt.want, "NewManager")
		err = m.SetConfig(tt.give)
		require.ErrorIs(t, err, txn.ErrInvalidConfig)
		assert.EqualError(t, err, tt.want, "SetConfig")
	}
	for _, tt := range []struct {
		give txn.RetryPolicy
		want string
	}{
		{txn.RetryPolicy{MaxAttempts: -1}, "txn: RetryPolicy.MaxAttempts -1 is negative: invalid config"},
		{txn.RetryPolicy{MaxAttempts: 3, MaxElapsed: -time.Millisecond}, "txn: RetryPolicy.MaxElapsed -1ms is negative: invalid config"},
		{txn.RetryPolicy{BaseBackoff: -3}, "txn: RetryPolicy.BaseBackoff -3ns is negative: invalid config"},
		{txn.RetryPolicy{MaxBackoff: -4}, "txn: RetryPolicy.MaxBackoff -4ns is negative: invalid config"},
	} {
		ran := false
		_, err := txn.Run(ctx, s, txn.Options{}, tt.give, func(*txn.Tx) error { ran = true; return nil })
		require.ErrorIs(t, err, txn.ErrInvalidConfig)
		assert.EqualError(t, err, tt.want, "Run")
		assert.False(t, ran)
	}
}
