package txn_test

import (
	"os"
	"testing"

	"github.com/tierkit/tierkit/internal/leak"
)

// TestMain fails the run if a test of the package leaves a goroutine behind.
// The package starts none itself, but the Manager race tests and the stress tests
// start their own, and each must have ended them before it returns.
func TestMain(m *testing.M) { os.Exit(leak.Main(m)) }
