package main

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestMemkvGCClaimIsChecked: the memkv section printed "GC with a
// 100-version window: ...; a read at version 1 gets %q" with whatever the
// read returned, under a title promising GC: a store that still served
// version 1 after GC printed `gets %!q(<nil>)`, and one that failed it for
// another reason printed that error, both with exit status 0. Found by a
// review.
func TestMemkvGCClaimIsChecked(t *testing.T) {
	require.NoError(t, verify(memkvGCClaims(memkv.ErrTooOld)...))
	err := verify(memkvGCClaims(nil)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a read at version 1 after GC fails with ErrTooOld, not <nil>")
	require.Error(t, verify(memkvGCClaims(errors.New("memkv: closed"))...))
}
