package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestZeroFlagValuesRefused: "-tenants 0", "-rate 0" and "-cadence 0s" were
// accepted and ran the defaults (12 tenants, 10 requests/s, 400 ms), since
// the Spec's zero means "the default", though the flags' ranges (1 to 100,
// > 0, 100ms to 1s) exclude them and the same flags' negative values were
// refused. Found by a review.
func TestZeroFlagValuesRefused(t *testing.T) {
	for _, tt := range []struct {
		give []string
		want string
	}{
		{[]string{"-tenants", "0"}, "cluster: Tenants out of range (want 1 to 100)"},
		{[]string{"-rate", "0"}, "cluster: Rate out of range (want 1 to 1000)"},
		{[]string{"-rate", "-0"}, "cluster: Rate out of range (want 1 to 1000)"},
		{[]string{"-cadence", "0s"}, "cluster: Cadence out of range (want 100ms to 1s)"},
		{[]string{"-tenants", "5", "-cadence", "0"}, "cluster: Cadence out of range (want 100ms to 1s)"},
	} {
		var errOut bytes.Buffer
		_, err := parseFlags(tt.give, &errOut)
		assert.EqualError(t, err, tt.want, "%q", tt.give)
		assert.Equal(t, tt.want+"\n", errOut.String(), "%q", tt.give)
	}
	// Flags not given still take the defaults.
	o, err := parseFlags([]string{"-tenants", "3"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, Spec{HTTP: "127.0.0.1:7070", Tenants: 3}, o.spec)
}
