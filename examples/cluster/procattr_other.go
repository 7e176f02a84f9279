//go:build !linux

package main

import "syscall"

// procAttr puts a child in its own process group, so the whole group can be
// signalled.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
