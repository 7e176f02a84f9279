package main

import (
	"bytes"
	"errors"
	"flag"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParseFlags feeds parseFlags arbitrary argument lists (one argument a
// line). Whatever it is given, it either refuses with an error it has also
// written to errOut (so the user sees why the command exited 2), or accepts
// options whose run count simulate can measure ([minBalRuns, maxBalRuns]) and
// that parse back to the same options from their canonical flags.
func FuzzParseFlags(f *testing.F) {
	for _, s := range []string{"", "-seed\n2\n-runs\n40\n-plots\nout", "-runs=300", "-h", "--help",
		"plots\n-seed\n2", "-runs\n1e9", "-runs\n-1", "-runs=20001", "-seed=18446744073709551615",
		"-plots=", "-plots\n-seed", "--\n-seed\n2", "-seed"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var args []string
		if in != "" {
			args = strings.Split(in, "\n")
		}
		var errOut bytes.Buffer
		o, err := parseFlags(args, &errOut)
		if err != nil {
			require.NotEmpty(t, errOut.String(), "%q refused silently: %v", args, err)
			require.Equal(t, options{}, o, "%q refused but returned options", args)
			if errors.Is(err, flag.ErrHelp) {
				require.Contains(t, errOut.String(), "-runs", "%q: help does not list the flags", args)
			}
			return
		}
		require.NoError(t, checkRuns(o.runs), "%q accepted", args)
		require.GreaterOrEqual(t, o.runs, minBalRuns(), "%q", args)
		require.LessOrEqual(t, o.runs, maxBalRuns, "%q", args)
		canon := []string{"-seed=" + strconv.FormatUint(o.seed, 10), "-runs=" + strconv.Itoa(o.runs), "-plots=" + o.plots}
		again, err := parseFlags(canon, &bytes.Buffer{})
		require.NoError(t, err, "%q (from %q)", canon, args)
		require.Equal(t, o, again, "%q (from %q)", canon, args)
	})
}
