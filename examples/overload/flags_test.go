package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStrayArgumentsRefused: an argument that is not a flag, and every flag
// after it, was ignored: "overload -d 10ms real -rd 5s" ran the simulation
// alone and exited 0, and a -real after a stray word was dropped, so the
// real mode never ran. Found by a review.
func TestStrayArgumentsRefused(t *testing.T) {
	for _, args := range [][]string{{"real"}, {"-d", "10ms", "real", "-rd", "5s"}, {"-plot", "", "x", "-real"}} {
		var errOut bytes.Buffer
		_, err := parseFlags(args, &errOut)
		require.Error(t, err, "%q", args)
		assert.Contains(t, errOut.String(), "unexpected argument", "%q", args)
	}

	o, err := parseFlags([]string{"-d", "10ms", "-plot", "", "-real", "-rd", "5s", "-noisycost", "4", "-loop"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, 10*time.Millisecond, o.d)
	assert.Empty(t, o.plotPath)
	assert.True(t, o.realMode)
	assert.True(t, o.loop)
	assert.Equal(t, 5*time.Second, o.real.Duration)
	assert.Equal(t, int64(4), o.real.NoisyCost)
	o, err = parseFlags(nil, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, 20*time.Second, o.d)
	assert.Equal(t, "overload.svg", o.plotPath)
	assert.False(t, o.realMode)

	_, err = parseFlags([]string{"-h"}, &bytes.Buffer{})
	assert.True(t, errors.Is(err, flag.ErrHelp), "-h is help (exit 0), not an error: %v", err)
	_, err = parseFlags([]string{"-d", "x"}, &bytes.Buffer{})
	assert.Error(t, err)
}

// TestEveryFlagDocumented: every flag -h lists has a row in the README's
// Flags table (eight were documented nowhere but in -h).
func TestEveryFlagDocumented(t *testing.T) {
	var usage bytes.Buffer
	_, err := parseFlags([]string{"-h"}, &usage)
	require.ErrorIs(t, err, flag.ErrHelp)
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	names := regexp.MustCompile(`(?m)^  -(\S+)`).FindAllStringSubmatch(usage.String(), -1)
	require.NotEmpty(t, names)
	for _, m := range names {
		assert.Contains(t, string(readme), "| `-"+m[1]+"` |", "flag -%s has no row in README.md's Flags table", m[1])
	}
}

// TestFlagTableAsHelpPrints: the README's Flags table says it lists every flag
// "as -h prints them", but its rows gave bounds -h did not print ("positive",
// "at most 2m", -noisycost's range): a reader of -h learned them only from the
// refusal. Each row's type, default and text must be what -h prints.
func TestFlagTableAsHelpPrints(t *testing.T) {
	var usage bytes.Buffer
	_, err := parseFlags([]string{"-h"}, &usage)
	require.ErrorIs(t, err, flag.ErrHelp)
	help := map[string][3]string{} // name -> type, default, text
	heads := regexp.MustCompile(`(?m)^  -(\S+)(?: (\S+))?\n    \t(.*)$`).FindAllStringSubmatch(usage.String(), -1)
	require.NotEmpty(t, heads)
	for _, m := range heads {
		typ, text, def := m[2], m[3], ""
		if i := regexp.MustCompile(` \(default (.*)\)$`).FindStringSubmatchIndex(text); i != nil {
			def, text = text[i[2]:i[3]], text[:i[0]]
		}
		if typ == "" {
			typ = "bool"
		}
		help[m[1]] = [3]string{typ, def, text}
	}
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	rows := regexp.MustCompile("(?m)^\\| `-(\\S+)` \\| (\\S+) \\| (.*?) \\| (.*) \\|$").FindAllStringSubmatch(string(readme), -1)
	require.Len(t, rows, len(help))
	for _, r := range rows {
		h, ok := help[r[1]]
		require.True(t, ok, "README row -%s is no flag", r[1])
		assert.Equal(t, h, [3]string{r[2], r[3], r[4]}, "-%s: README row against -h", r[1])
	}
}
