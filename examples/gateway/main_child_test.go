package main

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/internal/childproc"
)

// mainArgsEnv carries main's arguments to a child process: this test binary
// run again for one test (startMain), which then runs main (asMain).
const mainArgsEnv = "GATEWAY_MAIN_ARGS"

// ignoreSIGHUPEnv, set in a child's environment, has it ignore SIGHUP before
// main runs, as a process started under nohup does.
const ignoreSIGHUPEnv = "GATEWAY_IGNORE_SIGHUP"

// catchSIGHUPEnv, set in a child's environment, has it catch SIGHUP before
// main runs, so that main finds it not ignored, as a process started from a
// terminal does: a child inherits its parent's ignored signals, and a test
// run under nohup (a CI job can be) would otherwise pass the ignore on.
const catchSIGHUPEnv = "GATEWAY_CATCH_SIGHUP"

// asMain runs main with the arguments its parent passed, if this process is
// such a child, and reports whether it was: a test calls it first and
// returns if it was.
func asMain(t *testing.T) bool {
	env, ok := os.LookupEnv(mainArgsEnv)
	if !ok {
		return false
	}
	var args []string
	require.NoError(t, json.Unmarshal([]byte(env), &args))
	if os.Getenv(ignoreSIGHUPEnv) != "" {
		signal.Ignore(syscall.SIGHUP)
	}
	if os.Getenv(catchSIGHUPEnv) != "" {
		// Notify installs a handler even for a signal ignored since the
		// process started; main's own Notify then shares it.
		signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	}
	os.Args = append([]string{"gateway"}, args...)
	flag.CommandLine = flag.NewFlagSet("gateway", flag.ExitOnError)
	main() // until it exits, or the parent kills it
	return true
}

// startMain starts this test binary again, running only the calling test
// (its top-level test: asMain must be its first call), as a child that runs
// main with args; env is added to its environment. It returns the child and
// its stderr, where main logs. ctx's end kills the child, and so does this
// process's end, however it ends (childproc: a test binary that dies runs no
// cleanup, and the child would serve on, holding its ports).
func startMain(ctx context.Context, t *testing.T, args []string, env ...string) (*exec.Cmd, io.ReadCloser) {
	t.Helper()
	cmd := mainCmd(ctx, t, args, env...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, childproc.Start(cmd))
	return cmd, stderr
}

// mainCmd is the child startMain starts, not started yet.
func mainCmd(ctx context.Context, t *testing.T, args []string, env ...string) *exec.Cmd {
	t.Helper()
	test, _, _ := strings.Cut(t.Name(), "/")
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+test+"$")
	js, err := json.Marshal(args)
	require.NoError(t, err)
	cmd.Env = append(append(os.Environ(), mainArgsEnv+"="+string(js)), env...)
	cmd.WaitDelay = time.Second
	return cmd
}
