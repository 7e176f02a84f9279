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
// written to errOut (so the user sees why the command exited 2) and no
// options, or accepts options that Start and run would accept too (a spec in
// range once its defaults are filled in, known scenarios, a loopback HTTP
// address) and that parse back to the same options from their canonical
// flags.
func FuzzParseFlags(f *testing.F) {
	for _, s := range []string{"", "-scenario\nrollout\n-http\n127.0.0.1:0\n-tenants\n3\n-rate\n5\n-cadence\n1s\n-keep\n-q\n-gateway\ngw",
		"-scenario=all", "-scenario=killed-gateway,rollout", "-scenario=rollout,rollout", "-h", "-tenants=0",
		"-tenants=101", "-rate=NaN", "-rate=1e3", "-rate=0x1p-2", "-cadence=99ms", "-cadence=1s", "-http=0.0.0.0:1",
		"-http=[::1]:0", "noisy-tenant\n-q", "-q=false\n-keep=true"} {
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
				require.Contains(t, errOut.String(), "-scenario", "%q: help does not list the flags", args)
			}
			return
		}
		require.NoError(t, o.spec.withDefaults().validate(), "%q accepted", args)
		todo, err := scenarioList(o.scenario)
		require.NoError(t, err, "%q accepted", args)
		require.NoError(t, checkScenarios(todo, o.spec.withDefaults()), "%q accepted", args)
		require.NoError(t, checkLoopbackLiteral(o.spec.HTTP), "%q accepted", args)
		again, err := parseFlags(canonicalFlags(o), &bytes.Buffer{})
		require.NoError(t, err, "%q (from %q)", canonicalFlags(o), args)
		require.Equal(t, o, again, "%q (from %q)", canonicalFlags(o), args)
	})
}

// canonicalFlags are the flags that give o, one -name=value each; a setting
// left at zero (its default) is not given, since -tenants=0 is refused.
func canonicalFlags(o options) []string {
	args := []string{"-scenario=" + o.scenario, "-http=" + o.spec.HTTP, "-gateway=" + o.spec.GatewayBin,
		"-keep=" + strconv.FormatBool(o.keep), "-q=" + strconv.FormatBool(o.quiet)}
	if o.spec.Tenants != 0 {
		args = append(args, "-tenants="+strconv.Itoa(o.spec.Tenants))
	}
	if o.spec.Rate != 0 {
		args = append(args, "-rate="+strconv.FormatFloat(o.spec.Rate, 'g', -1, 64))
	}
	if o.spec.Cadence != 0 {
		args = append(args, "-cadence="+o.spec.Cadence.String())
	}
	return args
}
