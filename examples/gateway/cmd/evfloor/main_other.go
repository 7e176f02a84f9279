//go:build !linux

package main

import (
	"fmt"
	"os"
)

// evfloor's loop is built on epoll: on other systems it only says so.
func main() {
	fmt.Fprintln(os.Stderr, "evfloor: needs Linux (epoll)")
	os.Exit(2)
}
