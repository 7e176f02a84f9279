//go:build !linux

package childproc

import "os/exec"

// Start is cmd.Start: only Linux has a parent-death signal, so elsewhere a
// child outlives a test binary that dies without its cleanups.
func Start(cmd *exec.Cmd) error { return cmd.Start() }
