package txn_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

func TestOptionsErrorsWrapErrInvalidConfig(t *testing.T) {
	s := newStore(t, memkv.Config{})
	m, err := txn.NewManager(s, txn.ManagerConfig{})
	require.NoError(t, err)
	for _, iso := range []txn.Isolation{-1, txn.ReadCommitted + 1, 99} {
		t.Run(fmt.Sprint(int(iso)), func(t *testing.T) {
			want := fmt.Sprintf("txn: unknown Isolation %d: invalid config", int(iso))
			opt := txn.Options{Isolation: iso}
			_, err := txn.Begin(s, opt)
			require.ErrorIs(t, err, txn.ErrInvalidConfig, "Begin")
			assert.EqualError(t, err, want, "Begin")
			_, err = m.Begin(opt)
			require.ErrorIs(t, err, txn.ErrInvalidConfig, "Manager.Begin")
			assert.EqualError(t, err, want, "Manager.Begin")
			ran := false
			_, err = txn.Run(ctx, s, opt, txn.RetryPolicy{}, func(*txn.Tx) error { ran = true; return nil })
			require.ErrorIs(t, err, txn.ErrInvalidConfig, "Run")
			assert.False(t, ran, "Run ran fn with invalid Options")
		})
	}
	assert.Equal(t, 0, m.Len())
}

var invalidManagerConfigs = []struct {
	name string
	give txn.ManagerConfig
	want string
}{
	{"IdleTimeout", txn.ManagerConfig{IdleTimeout: -1}, "IdleTimeout -1ns"},
	{"MaxAge", txn.ManagerConfig{MaxAge: -1}, "MaxAge -1ns"},
	{"MaxTxns", txn.ManagerConfig{MaxTxns: -1}, "MaxTxns -1"},
	{"TxBudget", txn.ManagerConfig{TxBudget: -1}, "TxBudget -1"},
	{"TotalBudget", txn.ManagerConfig{TotalBudget: -1}, "TotalBudget -1"},
}

func TestManagerConfigErrorsWrapErrInvalidConfig(t *testing.T) {
	s := newStore(t, memkv.Config{})
	for _, tt := range invalidManagerConfigs {
		t.Run(tt.name, func(t *testing.T) {
			want := "txn: ManagerConfig." + tt.want + " is negative: invalid config"
			_, err := txn.NewManager(s, tt.give)
			require.ErrorIs(t, err, txn.ErrInvalidConfig, "NewManager")
			assert.EqualError(t, err, want, "NewManager")
			m, err := txn.NewManager(s, txn.ManagerConfig{})
			require.NoError(t, err)
			err = m.SetConfig(tt.give)
			require.ErrorIs(t, err, txn.ErrInvalidConfig, "SetConfig")
			assert.EqualError(t, err, want, "SetConfig")
		})
	}
}

// TestManagerSetConfigInvalidKeepsPrevious: a refused SetConfig changes
// nothing, not even the fields of the refused config that were valid: MaxTxns
// 1 stays in force.
func TestManagerSetConfigInvalidKeepsPrevious(t *testing.T) {
	m, err := txn.NewManager(newStore(t, memkv.Config{}), txn.ManagerConfig{MaxTxns: 1})
	require.NoError(t, err)
	for _, tt := range invalidManagerConfigs {
		bad := tt.give
		if bad.MaxTxns == 0 {
			bad.MaxTxns = 5
		}
		require.ErrorIs(t, m.SetConfig(bad), txn.ErrInvalidConfig, tt.name)
	}
	_, err = m.Begin(txn.Options{})
	require.NoError(t, err)
	_, err = m.Begin(txn.Options{})
	require.ErrorIs(t, err, txn.ErrOverloaded)
}

func TestRetryPolicyErrorsWrapErrInvalidConfig(t *testing.T) {
	s := newStore(t, memkv.Config{})
	for _, tt := range []struct {
		name string
		give txn.RetryPolicy
		want string
	}{
		{"MaxAttempts", txn.RetryPolicy{MaxAttempts: -1}, "txn: RetryPolicy.MaxAttempts -1 is negative"},
		{"MaxElapsed", txn.RetryPolicy{MaxElapsed: -1}, "txn: RetryPolicy.MaxElapsed -1ns is negative"},
		{"BaseBackoff", txn.RetryPolicy{BaseBackoff: -1}, "txn: RetryPolicy.BaseBackoff -1ns is negative"},
		{"MaxBackoff", txn.RetryPolicy{MaxBackoff: -1}, "txn: RetryPolicy.MaxBackoff -1ns is negative"},
		{"BaseBackoff over MaxBackoff", txn.RetryPolicy{BaseBackoff: time.Second, MaxBackoff: time.Millisecond},
			"txn: RetryPolicy.BaseBackoff 1s exceeds MaxBackoff 1ms"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ran := false
			_, err := txn.Run(ctx, s, txn.Options{}, tt.give, func(*txn.Tx) error { ran = true; return nil })
			require.ErrorIs(t, err, txn.ErrInvalidConfig)
			assert.EqualError(t, err, tt.want+": invalid config")
			assert.False(t, ran)
		})
	}
}

// TestManagerBeginInvalidBeforeOverloaded: a full Manager answered an
// invalid Options with ErrOverloaded, a retryable refusal, where the input
// can never succeed. Bad input is refused first. Found by a review.
func TestManagerBeginInvalidBeforeOverloaded(t *testing.T) {
	m, err := txn.NewManager(newStore(t, memkv.Config{}), txn.ManagerConfig{MaxTxns: 1})
	require.NoError(t, err)
	_, err = m.Begin(txn.Options{})
	require.NoError(t, err)
	_, err = m.Begin(txn.Options{})
	require.ErrorIs(t, err, txn.ErrOverloaded, "full")
	_, err = m.Begin(txn.Options{Isolation: 99})
	require.ErrorIs(t, err, txn.ErrInvalidConfig)
	assert.NotErrorIs(t, err, txn.ErrOverloaded)
}
