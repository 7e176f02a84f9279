package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProfileHzNeedsCPUProfile: -profilehz without -cpuprofile was accepted
// and ignored ("overload -real -profilehz 1000" wrote no profile and exited
// 0), and -profilehz 0 sampled at 100 Hz, the report saying 100. Both are
// refused. Found by a review.
func TestProfileHzNeedsCPUProfile(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-real", "-profilehz", "1000"}, "give -cpuprofile too"},
		{[]string{"-real", "-profilehz", "100"}, "give -cpuprofile too"},
		{[]string{"-real", "-cpuprofile", "cpu.pprof", "-profilehz", "0"}, "-profilehz 0"},
	} {
		var errOut bytes.Buffer
		_, err := parseFlags(c.args, &errOut)
		require.Error(t, err, "%q", c.args)
		assert.Contains(t, errOut.String(), c.want, "%q", c.args)
	}
	o, err := parseFlags([]string{"-real", "-cpuprofile", "cpu.pprof", "-profilehz", "1000"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, 1000, o.real.ProfileHz)
}
