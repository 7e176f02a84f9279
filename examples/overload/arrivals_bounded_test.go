package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRealArrivalsBounded: the real mode draws its warm-up's and measured
// run's arrivals up front, at 135% of the nominal capacity Target x Cores /
// Work. Only a NaN, infinite or negative rate was refused, so -target 90 (a
// percentage typed for 0.9), -work 1ns, -rd 10000h or -cores 1000 (a
// budget the process cannot use) drew tens of millions to billions of
// requests and ran out of memory before the warm-up began. parseFlags and
// runReal's check refuse them. Found by a review.
func TestRealArrivalsBounded(t *testing.T) {
	for _, args := range [][]string{
		{"-real", "-target", "90"}, {"-real", "-work", "1ns"}, {"-real", "-cores", "1000"},
		{"-real", "-rd", "10000h"},
	} {
		var errOut bytes.Buffer
		_, err := parseFlags(args, &errOut)
		require.Error(t, err, "%q", args)
		assert.Contains(t, errOut.String(), "real mode: ", "%q", args)
	}
	require.Error(t, realConfig{Duration: 20 * time.Second, Target: 90}.check())
	for _, args := range [][]string{
		{"-real"}, {"-real", "-rd", "60s", "-noisycost", "4"}, {"-real", "-cores", "1", "-target", "0.8"},
		{"-real", "-rd", "20s", "-recal", "5s"},
	} {
		_, err := parseFlags(args, &bytes.Buffer{})
		require.NoError(t, err, "%q", args)
	}
}
