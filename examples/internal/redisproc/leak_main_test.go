package redisproc

import (
	"os"
	"testing"

	"github.com/tierkit/tierkit/internal/leak"
)

// TestMain fails the run when the tests left a goroutine behind: Start's
// reaper of each process, or a client's, still running after every server
// was stopped.
func TestMain(m *testing.M) { os.Exit(leak.Main(m)) }
