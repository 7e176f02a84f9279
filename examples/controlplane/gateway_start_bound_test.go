package controlplane_test

import (
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestStartGatewayBoundedWait: startGateway read the child's log until its
// "gateway serving" line or its exit, with no other bound: a gateway that
// hung at start (or logged on without ever serving) held the test until go
// test's timeout, ten minutes by default, instead of failing it. The wait is
// now bounded; a child that neither serves nor exits is killed and the start
// fails. Found by a review.
func TestStartGatewayBoundedWait(t *testing.T) {
	for _, args := range [][]string{{"sleep", "600"}, {"yes", "starting"}} {
		tb := &recordTB{TB: t}
		started := make(chan struct{})
		go func() {
			defer close(started)
			startGatewayCmd(tb, exec.Command(args[0], args[1:]...), 100*time.Millisecond)
		}()
		timer := time.NewTimer(10 * time.Second)
		select {
		case <-started:
		case <-timer.C:
			t.Fatalf("%q: startGateway did not return within 10 s", args)
		}
		timer.Stop()
		assert.True(t, tb.failed(), "%q: startGateway accepted a process that never served", args)
		tb.runCleanups()
	}
}
