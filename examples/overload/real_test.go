package main

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/internal/leak"
)

// TestRealModeShort runs the real mode for half a second of warm-up and a
// second and a half measured at 2 ms of CPU per request: in both
// phases every offered request is admitted or shed, the calibration charges a
// request at least its work, and every goroutine it started (the control loop, the
// requests) is gone afterwards. It checks accounting and hygiene, not the
// figures, which need the full run on an idle machine (README.md).
func TestRealModeShort(t *testing.T) {
	leak.Check(t)
	var trace stringsBuilder
	// The control loop records a period only between two of its 100 ms
	// ticks that both fall inside the measured run: in half a second, a
	// stall of the loop of about 300 ms left none (1 failure in a
	// whole-module -race run on a machine other jobs held at a load average
	// of 15-30); in 1.5 s it takes a stall of over a second.
	r, err := runReal(realConfig{Duration: 1500 * time.Millisecond, Warmup: 500 * time.Millisecond, Work: 2 * time.Millisecond,
		Recal: 300 * time.Millisecond, Trace: &trace})
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(trace.String()), "\n")
	require.NotEmpty(t, r.periods, "the control loop recorded the measured periods")
	assert.Len(t, lines, 1+len(r.periods), "a header and one line per period")
	assert.True(t, strings.HasPrefix(lines[0], "t_s\tload\tlimit"))
	var shed int64
	for _, p := range r.periods {
		shed += p.normalShed[0] + p.normalShed[1] + p.normalShed[2]
	}
	assert.LessOrEqual(t, shed, r.run.shed[0].Load(), "the periods count normal sheds at most once")
	for _, p := range []*phaseStats{r.warm, r.run} {
		for k := range 2 {
			assert.Positive(t, p.offered[k].Load())
			assert.Equal(t, p.offered[k].Load(), p.admitted[k].Load()+p.shed[k].Load(), "class %d", k)
			assert.LessOrEqual(t, p.inDeadline[k].Load(), p.admitted[k].Load())
		}
	}
	assert.GreaterOrEqual(t, r.cpuPerReq, 2*time.Millisecond, "a request costs at least its work")
	assert.GreaterOrEqual(t, r.cpuPerReqAfter, 2*time.Millisecond, "so does it in the calibration after the run")
	assert.Positive(t, r.capacity)
	assert.GreaterOrEqual(t, r.limitMin, 1)
	assert.LessOrEqual(t, r.limitMax, 256)
	var b stringsBuilder
	r.print(&b)
	assert.Contains(t, b.String(), "real mode")
	assert.Contains(t, b.String(), "periods with a normal rejection")
	assert.Contains(t, b.String(), "calibration after the measured run")
	assert.Contains(t, b.String(), "goodput against the mean of the calibrations")
	// The round trip is printed when both ends were measured (two Ps that
	// ran the probe's goroutines at once), and only then.
	measured := r.c2c[0] > 0 && r.c2c[1] > 0
	assert.Equal(t, measured, strings.Contains(b.String(), "core-to-core round trip"))
	if runtime.GOMAXPROCS(0) < 2 {
		assert.False(t, measured, "no round trip with one P")
	}
}

// TestRealModeTimesFromScheduledArrival: a request counts as within its
// deadline by the time since the client meant to send it, not since its
// goroutine started. Driving requests whose arrivals are all more than the
// deadline in the past (a generator running a second late) must count none
// within deadline; timed from the goroutine's start, every one counted.
func TestRealModeTimesFromScheduledArrival(t *testing.T) {
	leak.Check(t)
	cfg := realConfig{Work: 10 * time.Microsecond, Backend: time.Microsecond, Target: 0.9,
		QueueDeadline: defaultQueueDeadline, Cores: 1, NoisyCost: 1}
	tr, err := newRealTier(cfg)
	require.NoError(t, err)
	defer tr.sh.Close()
	defer tr.lim.Close()
	reqs := make([]request, 20)
	for i := range reqs {
		reqs[i] = request{tenant: i % 2, name: "t" + string(rune('a'+i%2)), cost: 1, arrive: time.Duration(i) * time.Microsecond}
	}
	p := newPhaseStats(2)
	tr.drive(p, reqs, time.Now().Add(-time.Second)) // every arrival a second late
	assert.EqualValues(t, 20, p.offered[0].Load())
	assert.Zero(t, p.inDeadline[0].Load(), "requests a second late are not within a 100 ms deadline")

	// On time: the same requests are served within the deadline. The
	// deadline is a minute here, not the 100 ms above: on a loaded machine
	// (CI's race run on 2 shared cores) 20 goroutines can take longer than
	// 100 ms, and a request admitted but finished late counts as neither
	// within the deadline nor shed.
	tr.deadline = time.Minute
	p = newPhaseStats(2)
	tr.drive(p, reqs, time.Now())
	assert.EqualValues(t, 20, p.inDeadline[0].Load()+p.shed[0].Load())
	assert.Positive(t, p.inDeadline[0].Load())
}
