package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoisyCostBounded: -noisycost was not checked. A negative cost was
// taken as 1 without a word, and a large one made every admitted noisy
// request burn cost x -work of CPU: -noisycost 1000000 burned 200 s per
// request, and the measured run, which ends when its last request has,
// ran for hours. A cost whose work outlasts the client's 100 ms deadline
// is refused. Found by a review.
func TestNoisyCostBounded(t *testing.T) {
	for _, args := range [][]string{
		{"-real", "-noisycost", "-4"}, {"-real", "-noisycost", "1000000"},
		{"-real", "-noisycost", "501"}, {"-real", "-work", "50ms", "-noisycost", "4"},
		{"-real", "-noisycost", "9223372036854775807"},
	} {
		var errOut bytes.Buffer
		_, err := parseFlags(args, &errOut)
		require.Error(t, err, "%q", args)
		assert.Contains(t, errOut.String(), "real mode: ", "%q", args)
	}
	for _, args := range [][]string{{"-real", "-noisycost", "4"}, {"-real", "-noisycost", "500"}, {"-real", "-noisycost", "1"}} {
		_, err := parseFlags(args, &bytes.Buffer{})
		require.NoError(t, err, "%q", args)
	}
}

// TestNoisyCostZeroRefused: -noisycost 0 ran at cost 1 without a word (the
// run's config takes a zero cost for its default), and the report then
// printed cost 1 for a run asked at 0. The flag has no "0: default"; a cost
// below 1 is refused as a negative one is. Found by a review.
func TestNoisyCostZeroRefused(t *testing.T) {
	var errOut bytes.Buffer
	_, err := parseFlags([]string{"-real", "-noisycost", "0"}, &errOut)
	require.Error(t, err)
	assert.Contains(t, errOut.String(), "-noisycost 0")
}

// TestZeroDefaultsRefused: like -noisycost, -work, -warmup, -backend, -qd
// and -target took 0 for their defaults without a word (-backend 0 waited
// 10 ms). Each is refused, naming the flag. Found by a review.
func TestZeroDefaultsRefused(t *testing.T) {
	for _, flag := range []string{"-work", "-warmup", "-backend", "-qd", "-target"} {
		var errOut bytes.Buffer
		_, err := parseFlags([]string{"-real", flag, "0"}, &errOut)
		require.Error(t, err, flag)
		assert.Contains(t, errOut.String(), flag+" 0:")
	}
}
