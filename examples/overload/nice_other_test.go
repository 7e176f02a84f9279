//go:build !linux

package main

func rtTestChild() bool { return false }
