package main

import "syscall"

// procAttr puts a child in its own process group (so the whole group can be
// signalled) and has the kernel kill it if the cluster's process dies first,
// so even a test binary killed by its timeout leaves no gateway behind.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
