package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/hashring"
)

// TestHashringNoiseClaimsAreChecked: the hashring section printed "on N real
// keys: max keys / expected = %.3f (a perfect random placement of as many
// keys shows %.3f: sampling noise)" whatever the two figures: a ring that
// gave a host 20% more keys than its weight printed its 1.2 as sampling
// noise, with exit status 0. Found by a review.
func TestHashringNoiseClaimsAreChecked(t *testing.T) {
	hosts := []hashring.Node{{ID: "a", Weight: 1}, {ID: "b", Weight: 3}}
	place := func(a, b int) []string {
		return append(strings.Split(strings.Repeat("a", a), ""), strings.Split(strings.Repeat("b", b), "")...)
	}
	// 40,000 keys: a expects 10,000 +- 86.6, b 30,000 +- 86.6.
	exact := noiseSigmas(place(10_000, 30_000), hosts)
	assert.InDelta(t, 0, exact, 1e-9)
	require.NoError(t, verify(hashringNoiseClaims(exact)...))
	near := noiseSigmas(place(10_300, 29_700), hosts)
	assert.InDelta(t, 300/86.6025, near, 1e-3)
	require.NoError(t, verify(hashringNoiseClaims(near)...), "3.5 sigma: noise")

	skewed := noiseSigmas(place(12_000, 28_000), hosts) // a holds 1.2 x its share
	err := verify(hashringNoiseClaims(skewed)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "within 4.5 sigma of its weight's expected count (sampling noise), not 23.1 sigma off")
}
