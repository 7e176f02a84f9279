package corelat

import (
	"os"
	"testing"

	"github.com/tierkit/tierkit/internal/leak"
)

// TestMain fails the run if a test leaves an echoing goroutine behind: round
// starts one per round and must stop it, whether the round completes or is
// abandoned at its deadline (TestRoundTripHugePasses).
func TestMain(m *testing.M) { os.Exit(leak.Main(m)) }
