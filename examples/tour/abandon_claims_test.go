package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/coalesce"
)

// TestCoalesceAbandonClaimsAreChecked: the coalesce section printed "all
// callers left: ...; next caller started a fresh fetch -> %q, %v" whatever
// the next Do returned. A Group that left the abandoned call under its key
// (the hazard the style guide names: late callers must start a fresh call)
// hands the next caller the cancelled call's result, and the line read
// "started a fresh fetch -> "", context canceled" with exit status 0. Found
// by a review.
func TestCoalesceAbandonClaimsAreChecked(t *testing.T) {
	st := coalesce.Stats{Abandoned: 1}
	require.NoError(t, verify(coalesceAbandonClaims(true, "fresh", nil, st)...))

	err := verify(coalesceAbandonClaims(false, "", context.Canceled, st)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `next caller started a fresh fetch -> "fresh", <nil>, not "", context canceled (a fresh fetch ran: false)`)
	require.Error(t, verify(coalesceAbandonClaims(true, "fresh", nil, coalesce.Stats{})...), "the abandoned fetch was not counted")
}
