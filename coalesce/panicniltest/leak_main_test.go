package panicniltest

import (
	"os"
	"testing"

	"github.com/tierkit/tierkit/internal/leak"
)

// TestMain fails the run if a test of the package leaves a goroutine behind,
// as in every other package of the module: these tests flush and fetch on
// goroutines of their own.
func TestMain(m *testing.M) { os.Exit(leak.Main(m)) }
