package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/txn"
)

// TestTxnManagerClaimsAreChecked: the txn section printed "manager: N
// thin-client transactions, C committed, R abandoned and reaped; memory held
// X B -> Y B" under a title promising a thin-client manager, whatever the
// figures were, and dropped the errors of the transactions' Get and Put. A
// Manager whose Reap left the abandoned half held (R = 0, memory not given
// back), or whose Put failed for every transaction, would have been printed,
// not caught, with exit status 0. Found by a review.
func TestTxnManagerClaimsAreChecked(t *testing.T) {
	ok := txn.ManagerStats{Begun: 1000, Committed: 500}
	require.NoError(t, verify(txnManagerClaims(1000, 59_000, 500, ok)...))

	err := verify(txnManagerClaims(1000, 59_000, 0, txn.ManagerStats{Begun: 1000, Committed: 500, Active: 500, MemoryBytes: 29_500})...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the 500 abandoned transactions reaped, not 0")
	assert.Contains(t, err.Error(), "memory held 59000 B -> 0 B, not 29500 B (500 still held)")
	require.Error(t, verify(txnManagerClaims(1000, 59_000, 500, txn.ManagerStats{Begun: 1000, Committed: 499})...))
	require.Error(t, verify(txnManagerClaims(1000, 0, 500, ok)...), "the transactions held no memory to give back")
}
