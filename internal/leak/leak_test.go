package leak

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLeakedFindsNewGoroutine(t *testing.T) {
	before := Snapshot()
	stop := make(chan struct{})
	started := make(chan struct{})
	go func() {
		close(started)
		<-stop
	}()
	<-started
	extra := Leaked(before)
	require.Len(t, extra, 1, "the blocked goroutine is reported")
	require.Contains(t, extra[0], "leak.TestLeakedFindsNewGoroutine")
	close(stop)
}

func TestCheckPassesWhenGoroutinesExit(t *testing.T) {
	Check(t)
	done := make(chan struct{})
	go func() { close(done) }()
	<-done
}

func TestCheckReportsLeak(t *testing.T) {
	old := settle
	settle = 0
	defer func() { settle = old }()
	ft := &fakeT{TB: t}
	stop := make(chan struct{})
	defer close(stop)
	func() {
		Check(ft)
		go func() { <-stop }()
	}()
	// The goroutine stays until stop closes, so the cleanup must report it.
	ft.runCleanups()
	require.True(t, ft.failed, "a goroutine that outlives the test is reported")
}

type fakeT struct {
	testing.TB
	cleanups []func()
	failed   bool
}

func (f *fakeT) Cleanup(fn func())                 { f.cleanups = append(f.cleanups, fn) }
func (f *fakeT) Errorf(format string, args ...any) { f.failed = true }
func (f *fakeT) Helper()                           {}
func (f *fakeT) runCleanups() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}
