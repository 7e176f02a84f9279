package main

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParseFlags feeds parseFlags arbitrary argument lists (one argument a
// line). Whatever it is given, it either refuses with an error it has also
// written to errOut (so the user sees why the command exited 2) and no
// options, or accepts options that checkFlags accepts, whose burst is the
// one -burst names, and in which no setting of a mode that does not run took
// effect: without -real the real mode's settings are the defaults (but
// -nice and -rt, which apply to every mode), without -loop the seed is 1.
func FuzzParseFlags(f *testing.F) {
	for _, s := range []string{"", "-h", "-d\n10ms", "-d=20m", "-d=0", "-real\n-rd\n5s\n-burst\n10s:300ms:1",
		"-rd\n60s\n-cpuprofile\ncpu.pprof", "-real\n-profilehz\n1000", "-real\n-cpuprofile=c\n-profilehz=1000",
		"-loopseed=7", "-loop\n-loopseed=7", "-nice=19", "-nice=20", "-rt=99", "-rt=100", "-plot=x.jpg", "-plot=",
		"-real\n-cores=NaN", "-real\n-noisycost=0", "-real\n-target=-1", "-d\n10ms\nreal\n-rd\n5s"} {
		f.Add(s)
	}
	def, err := parseFlags(nil, &bytes.Buffer{})
	require.NoError(f, err)
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
				require.Contains(t, errOut.String(), "-real", "%q: help does not list the flags", args)
			}
			return
		}
		require.NoError(t, checkFlags(o), "%q accepted", args)
		burst, err := parseBurst(o.burst)
		require.NoError(t, err, "%q accepted", args)
		require.Equal(t, burst, o.real.Burst, "%q", args)
		if !o.realMode {
			r := o.real
			r.Nice, r.RT = def.real.Nice, def.real.RT
			require.Equal(t, def.real, r, "%q: a real-mode setting took effect without -real", args)
			require.Equal(t, def.tracePath, o.tracePath, "%q", args)
		}
		if !o.loop {
			require.Equal(t, def.loopSeed, o.loopSeed, "%q: -loopseed took effect without -loop", args)
		}
	})
}
