package main

import (
	"os"
	"testing"

	"github.com/tierkit/tierkit/internal/leak"
)

// TestMain fails the run when the tests left a goroutine behind: the
// sections start workers, stampedes, flushers and readers, and each must
// have ended them before it returns.
func TestMain(m *testing.M) { os.Exit(leak.Main(m)) }
