package childproc

import (
	"os/exec"
	"runtime"
	"syscall"
)

// Start starts cmd so that the kernel sends it SIGKILL as soon as this
// process exits, however it exits (Linux's parent-death signal).
//
// The kernel sends that signal when the thread that started the child exits,
// not the process, and the Go runtime ends a thread when a goroutine locked
// to it returns without unlocking: every child is therefore started by one
// goroutine locked to its thread for the life of the process, started at init
// so that it predates any test's goroutine leak check.
func Start(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	done := make(chan error, 1)
	starts <- startReq{cmd, done}
	return <-done
}

type startReq struct {
	cmd  *exec.Cmd
	done chan<- error
}

// starts feeds the goroutine that starts every child.
var starts = make(chan startReq)

func init() {
	go func() {
		runtime.LockOSThread() // never unlocked: the thread lives as long as the process
		for r := range starts {
			r.done <- r.cmd.Start()
		}
	}()
}
