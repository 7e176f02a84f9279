package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/txn"
)

// TestTxnLostReplyClaimsAreChecked: the txn section printed "3 more runs, 2
// with a lost reply: without idempotency key -> ErrCommitUnknown %v (not
// retried); with key req-42 (reply kept) -> %s; with key req-43 (reply lost:
// retried, deduplicated) -> %s" with whatever the runs returned, checking
// only the counter. A Run that gave up on a lost reply even with a key (the
// commit applied once, the counter right) printed "-> txn: commit unknown"
// under "retried, deduplicated", and one that returned nil without a key
// printed "ErrCommitUnknown false (not retried)", both with exit status 0.
// Found by a review.
func TestTxnLostReplyClaimsAreChecked(t *testing.T) {
	require.NoError(t, verify(txnLostReplyClaims(2, txn.ErrCommitUnknown, nil, nil)...))

	err := verify(txnLostReplyClaims(2, txn.ErrCommitUnknown, nil, txn.ErrCommitUnknown)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "with key req-43 (reply lost: retried, deduplicated) -> ok, not ")
	err = verify(txnLostReplyClaims(2, nil, nil, nil)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-> ErrCommitUnknown, not ok")
	require.Error(t, verify(txnLostReplyClaims(1, txn.ErrCommitUnknown, nil, nil)...), "a reply was not dropped")
	require.Error(t, verify(txnLostReplyClaims(2, txn.ErrCommitUnknown, txn.ErrCommitUnknown, nil)...))
}
