package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestModeFlagsNeedTheirMode: a real-mode flag without -real, or -loopseed
// without -loop, was accepted and ignored: "overload -rd 60s -cpuprofile
// cpu.pprof" ran the simulation alone, wrote no profile and exited 0. Such a
// flag is refused; -nice and -rt, which apply to the whole process, are not.
// Found by a review.
func TestModeFlagsNeedTheirMode(t *testing.T) {
	for _, args := range [][]string{
		{"-rd", "60s"}, {"-cpuprofile", "cpu.pprof"}, {"-trace", "t.tsv"}, {"-noisycost", "4"},
		{"-burst", "1s:300ms:1"}, {"-atdeadline"}, {"-d", "10ms", "-loop", "-sched", "0"},
		{"-loopseed", "2"}, {"-real", "-loopseed", "2"},
	} {
		var errOut bytes.Buffer
		_, err := parseFlags(args, &errOut)
		require.Error(t, err, "%q", args)
		assert.Contains(t, errOut.String(), "runs with -", "%q", args)
	}
	for _, args := range [][]string{
		{"-real", "-rd", "60s", "-cpuprofile", "cpu.pprof", "-trace", "t.tsv"}, {"-loop", "-loopseed", "2"},
		{"-nice", "-5"}, {"-rt", "1"}, {"-d", "10ms", "-plot", ""},
	} {
		_, err := parseFlags(args, &bytes.Buffer{})
		require.NoError(t, err, "%q", args)
	}
}
