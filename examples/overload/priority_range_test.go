package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPriorityFlagsRange: -nice outside -20..19 and -rt outside 0..99 were
// accepted by the flag check; the kernel clamps a niceness, so the run
// failed later with "renice to 50: thread N is at 19", and an -rt of 100
// failed only when the policy was applied. Both are refused up front now,
// with the range in the message. Found by a review.
func TestPriorityFlagsRange(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-real", "-nice", "50"}, "-nice 50"},
		{[]string{"-real", "-nice", "-21"}, "-nice -21"},
		{[]string{"-real", "-rt", "100"}, "-rt 100"},
		{[]string{"-real", "-rt", "-1"}, "-rt -1"},
	} {
		var errOut bytes.Buffer
		_, err := parseFlags(tc.args, &errOut)
		require.Error(t, err, "%q", tc.args)
		assert.Contains(t, errOut.String(), tc.want, "%q", tc.args)
	}
	for _, args := range [][]string{{"-real", "-nice", "-20"}, {"-real", "-nice", "19"}, {"-real", "-rt", "99"}, {"-real", "-rt", "0"}} {
		_, err := parseFlags(args, &bytes.Buffer{})
		assert.NoError(t, err, "%q", args)
	}
}
