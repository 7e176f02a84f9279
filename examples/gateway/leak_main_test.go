package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tierkit/tierkit/internal/leak"
)

// TestMain also fails the run when the tests left a goroutine behind: a
// connection, batcher, feed follower, checkpoint loop, refusal, worker or
// server still running after every test shut its gateway down. Only some
// tests call leak.Check; this covers the others. A child process of a test
// (startMain: this binary running main) is not checked: main ends it.
func TestMain(m *testing.M) {
	before := leak.Snapshot()
	code := m.Run()
	if _, child := os.LookupEnv(mainArgsEnv); code == 0 && !child {
		// Goroutines on their way out (a refused connection closing) get
		// 5 s to end.
		left := leak.Leaked(before)
		for deadline := time.Now().Add(5 * time.Second); len(left) > 0 && time.Now().Before(deadline); left = leak.Leaked(before) {
			time.Sleep(10 * time.Millisecond)
		}
		if len(left) > 0 {
			fmt.Fprintf(os.Stderr, "leak: %d goroutine(s) still running after the tests:\n\n%s\n", len(left), strings.Join(left, "\n\n"))
			code = 1
		}
	}
	os.Exit(code)
}
