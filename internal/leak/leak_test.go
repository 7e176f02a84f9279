package leak

import (
	"strings"
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

type fakeM struct{ run func() int }

func (m fakeM) Run() int { return m.run() }

func TestMainReportsLeak(t *testing.T) {
	old, oldErr := settle, stderr
	settle = 0
	var out strings.Builder
	stderr = &out
	defer func() { settle, stderr = old, oldErr }()
	stop := make(chan struct{})
	defer close(stop)
	code := Main(fakeM{func() int { go func() { <-stop }(); return 0 }})
	require.Equal(t, 1, code, "a goroutine that outlives the tests fails the run")
	require.Contains(t, out.String(), "leak: 1 goroutine(s)")
}

func TestMainPassesWhenGoroutinesExit(t *testing.T) {
	done := make(chan struct{})
	require.Zero(t, Main(fakeM{func() int { go func() { close(done) }(); <-done; return 0 }}))
	require.Equal(t, 3, Main(fakeM{func() int { return 3 }}), "a failed run keeps its code")
}
