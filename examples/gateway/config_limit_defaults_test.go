package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConfigAdmissionLimitDefaultsFollow: a file that sets only max_limit,
// below min_limit's default (64), or only min_limit, above max_limit's
// (4096), is served with the other bound at the one given, rather than
// refused for a contradiction with a default it never wrote ("min_limit 64 >
// max_limit 32"). Both given and crossed are still refused.
func TestConfigAdmissionLimitDefaultsFollow(t *testing.T) {
	for _, tc := range []struct {
		json     string
		min, max int
	}{
		{`{}`, 64, 4096},
		{`{"max_limit": 32}`, 32, 32},
		{`{"max_limit": 100}`, 64, 100},
		{`{"min_limit": 8000}`, 8000, 8000},
		{`{"min_limit": 8}`, 8, 4096},
	} {
		t.Run(tc.json, func(t *testing.T) {
			require.NoError(t, buildFromJSON(t, []byte(tc.json)))
			c, err := decodeConfig([]byte(tc.json))
			require.NoError(t, err)
			c, err = c.withDefaults()
			require.NoError(t, err)
			require.Equal(t, [2]int{tc.min, tc.max}, [2]int{c.MinLimit, c.MaxLimit})
		})
	}
	require.ErrorContains(t, buildFromJSON(t, []byte(`{"min_limit": 10, "max_limit": 5}`)), "min_limit 10 > max_limit 5")
	// Past the aimd.max knob's bound, min_limit is refused for it
	// (config_min_limit_bound_test.go).
}
