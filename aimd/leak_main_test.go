package aimd_test

import (
	"os"
	"testing"

	"github.com/tierkit/tierkit/internal/leak"
)

// TestMain fails the run if a test of the package leaves a goroutine behind
// (bubbled tests are checked by synctest; this covers the others too).
func TestMain(m *testing.M) { os.Exit(leak.Main(m)) }
