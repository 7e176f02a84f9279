package main

import (
	"os"
	"testing"

	"github.com/tierkit/tierkit/internal/leak"
)

// TestMain fails the run when the tests left a goroutine behind: run's HTTP
// server or plane loop, or a test's own runner, still alive after every test
// cancelled its context.
func TestMain(m *testing.M) { os.Exit(leak.Main(m)) }
