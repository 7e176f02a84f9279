package main

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestABUsage: ab.sh with fewer than four arguments stopped on bash's
// "unbound variable", and with the four but no binary it printed its
// table's header alone and exited 0, a run that measured nothing passing
// for whatever ran it. Both must print a usage line and exit 2, before
// starting anything (memkv: nothing to start in any case).
func TestABUsage(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for name, args := range map[string][]string{
		"no binary":     {"memkv", "100", "2", "1"},
		"two arguments": {"memkv", "100"},
		"none":          nil,
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bash, append([]string{"ab.sh"}, args...)...)
			var o bytes.Buffer
			cmd.Stdout, cmd.Stderr = &o, &o
			err := cmd.Run()
			require.NoError(t, ctx.Err(), "ab.sh ran on: %s", o.String())
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "ab.sh %q: %v: %s", args, err, o.String())
			assert.Equal(t, 2, exit.ExitCode(), "%s", o.String())
			assert.Contains(t, o.String(), "usage: ")
			assert.NotContains(t, o.String(), "ops/s", "the table's header")
		})
	}
}
