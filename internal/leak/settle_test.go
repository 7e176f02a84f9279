package leak

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCheckWaitsForGoroutinesOnTheirWayOut: a goroutine still alive when the
// test ends, and which ends soon after (a worker that a Close signalled but
// did not wait for), is not a leak. Here it ends only once Check's cleanup
// has seen it alive: a cleanup that looked once would report it.
func TestCheckWaitsForGoroutinesOnTheirWayOut(t *testing.T) {
	release := make(chan struct{})
	seen := 0
	retrying = func() {
		if seen++; seen == 1 {
			close(release)
		}
	}
	defer func() { retrying = nil }()
	ft := &fakeT{TB: t}
	func() {
		Check(ft)
		go func() { <-release }()
	}()
	ft.runCleanups()
	require.Positive(t, seen, "the goroutine was alive at the first look: the test shows nothing")
	require.False(t, ft.failed, "a goroutine that ends within the settle is not reported")
}

// TestMainWaitsForGoroutinesOnTheirWayOut: the same for Main, after the
// tests passed.
func TestMainWaitsForGoroutinesOnTheirWayOut(t *testing.T) {
	release := make(chan struct{})
	seen := 0
	retrying = func() {
		if seen++; seen == 1 {
			close(release)
		}
	}
	defer func() { retrying = nil }()
	code := Main(fakeM{func() int { go func() { <-release }(); return 0 }})
	require.Positive(t, seen, "the goroutine was alive at the first look: the test shows nothing")
	require.Zero(t, code, "a goroutine that ends within the settle does not fail the run")
}
