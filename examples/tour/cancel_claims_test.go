package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/coalesce"
)

// TestCoalesceCancelClaimsAreChecked: the coalesce section printed
// "impatient caller cancelled: returned %v ...; shared fetch's context still
// live: %v" and "patient caller got %q (shared: %v)" with whatever happened.
// A Group that cancelled the shared fetch when its first caller gave up
// printed "still live: false" and "patient caller got "" (shared: false)",
// the very failure the lines rule out, with exit status 0. Found by a review.
func TestCoalesceCancelClaimsAreChecked(t *testing.T) {
	ok := coalesce.Result[string]{Val: "v1", Shared: true}
	require.NoError(t, verify(coalesceCancelClaims(context.Canceled, true, ok)...))

	err := verify(coalesceCancelClaims(context.Canceled, false, coalesce.Result[string]{Err: context.Canceled})...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the shared fetch's context still live after one caller left")
	assert.Contains(t, err.Error(), `the patient caller got "v1" (shared: true), not "", context canceled (shared: false)`)
	require.Error(t, verify(coalesceCancelClaims(nil, true, ok)...), "the impatient caller waited for the answer")
	require.Error(t, verify(coalesceCancelClaims(context.Canceled, true, coalesce.Result[string]{Val: "v1"})...))
}
