package main

import (
	"context"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
	"github.com/tierkit/tierkit/internal/leak"
)

// TestChaosOffEndsTheChaosInProgress: turning chaos.burn_us or chaos.delay_us
// off ends the burn or the wait of the calls already in them. Before, a call
// kept the burn or delay it read when it began: a batch of 300 ops at the
// largest burn kept a thread spinning 3 s after the knob was set to 0, and a
// call in a 1 s delay waited its second out, so the heat and latency of an
// experiment outlived its end by up to request_timeout.
//
// The check is that the call ends before the chaos it began with could have
// run out (full, timed from before the call starts): a call that kept it
// cannot, however fast the machine, and a call that heeds the knob has the
// whole rest of full to notice, however loaded. A fixed bound after the knob
// was turned off (it was 300 ms) could be overrun by a descheduled thread
// under -race on a loaded machine, and for the delay it shrank as the poll
// for the wait was slowed: the wait kept fewer ms to outlive the knob.
func TestChaosOffEndsTheChaosInProgress(t *testing.T) {
	for _, tc := range []struct {
		knob  string
		value int64
		ops   int
		full  time.Duration                  // the least the chaos lasts if the knob is not heeded
		in    func(t *testing.T) func() bool // reports when the call is in the chaos
	}{
		{"chaos.burn_us", chaosMaxBurn.Microseconds(), 1000, 1000 * chaosMaxBurn, burning},
		{"chaos.delay_us", chaosMaxDelay.Microseconds(), 1, chaosMaxDelay, waitingInChaos},
	} {
		t.Run(tc.knob, func(t *testing.T) {
			leak.Check(t)
			reg, err := control.New(control.Config{})
			require.NoError(t, err)
			nb := &nullBackend{}
			g := &Gateway{backend: nb}
			for _, err := range g.registerChaos(reg) {
				require.NoError(t, err)
			}
			set := func(v int64) {
				_, err := reg.Apply(control.Request{Who: "test", Changes: []control.Change{{Knob: tc.knob, Value: control.Int(v)}}})
				require.NoError(t, err)
			}
			set(tc.value)
			in := tc.in(t)
			ops := make([]op, tc.ops)
			done := make(chan time.Time, 1)
			began := time.Now() // before the chaos: a burn's CPU time is at most its wall time
			go func() {
				_ = g.backend.Do(context.Background(), 0, ops, make([]opResult, len(ops)))
				done <- time.Now()
			}()
			deadline := time.Now().Add(10 * time.Second)
			for !in() {
				require.True(t, time.Now().Before(deadline), "the call never reached the chaos")
				time.Sleep(time.Millisecond) // bounded poll
			}
			set(0)
			end := <-done
			assert.Less(t, end.Sub(began), tc.full, "the chaos went on after the knob was turned off")
			assert.Equal(t, int64(1), nb.calls.Load())
		})
	}
}

// burning reports once the process has used 50 ms of CPU since it was called:
// the burn is the only thing running.
func burning(t *testing.T) func() bool {
	start := processCPU(t)
	return func() bool { return processCPU(t)-start >= 50*time.Millisecond }
}

func processCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// waitingInChaos reports once a goroutine is blocked in a select inside
// chaosBackend.Do: the delay's wait.
func waitingInChaos(*testing.T) func() bool {
	return func() bool {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "[select") && strings.Contains(g, "(*chaosBackend).Do") {
				return true
			}
		}
		return false
	}
}
