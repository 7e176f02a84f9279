package controlplane_test

import (
	"fmt"
	"os/exec"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestStartGatewayFailureDoesNotHangCleanup: a gateway that exits at start
// without its "gateway serving" line (a bad build, a refused setting) failed
// startGateway's require, and the cleanup it had registered, stop, then
// waited for ever for a stderr drain that was only started after that
// require: the test hung until go test's timeout instead of failing. The
// helper runs here under a stand-in TB, with a command that exits at once.
// Found by a review.
func TestStartGatewayFailureDoesNotHangCleanup(t *testing.T) {
	tb := &recordTB{TB: t}
	started := make(chan struct{})
	go func() {
		defer close(started)
		startGatewayCmd(tb, exec.Command("go", "env", "GOOS"), gatewayStartWait) // no "gateway serving" line
	}()
	<-started
	assert.True(t, tb.failed(), "startGateway accepted a process that never served")
	cleaned := make(chan struct{})
	go func() {
		defer close(cleaned)
		tb.runCleanups()
	}()
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	select {
	case <-cleaned:
	case <-timer.C:
		t.Fatal("startGateway's cleanup did not return within 10 s after a failed start")
	}
}

// recordTB stands in for a test's TB in a helper's test: it records
// failures and cleanups instead of failing the test it wraps.
type recordTB struct {
	testing.TB
	mu       sync.Mutex
	msgs     []string
	cleanups []func()
}

func (r *recordTB) Helper() {}

func (r *recordTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

func (r *recordTB) FailNow() {
	r.Errorf("FailNow")
	runtime.Goexit()
}

func (r *recordTB) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

func (r *recordTB) failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.msgs) > 0
}

func (r *recordTB) runCleanups() {
	r.mu.Lock()
	fs := r.cleanups
	r.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}
