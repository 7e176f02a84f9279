package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConfigMinLimitPastKnobBoundNamesItself: a min_limit above what the
// aimd.max knob can hold is refused for its own bound. It was refused as
// "min_limit 2000000 > max_limit 1048576", naming a max_limit the file never
// set (its default, which follows min_limit, stops at the knob's bound).
func TestConfigMinLimitPastKnobBoundNamesItself(t *testing.T) {
	for _, json := range []string{`{"min_limit": 2000000}`, `{"min_limit": 2000000, "max_limit": 2000000}`} {
		err := buildFromJSON(t, []byte(json))
		require.ErrorContains(t, err, "gateway: min_limit 2000000: want 1 to 1048576", json)
		require.NotContains(t, err.Error(), "max_limit", json)
	}
	require.NoError(t, buildFromJSON(t, []byte(`{"min_limit": 1048576}`)))
}
