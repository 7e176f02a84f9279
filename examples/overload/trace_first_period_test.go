package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestFirstPeriodOverItsLength: the counters of the first period recorded
// run from the measured run's start, where measure reads them, to the first
// tick of a period wholly inside the run, 100-200 ms later (the ticks do not
// line up with the start). Rates of the period (the other processes' CPU,
// the steal) were divided by one control period instead: a first period
// of 180 ms read 1.8 times high.
func TestFirstPeriodOverItsLength(t *testing.T) {
	if b, _ := machineBusy(); b < 0 {
		t.Skip("no machine-wide CPU counters here")
	}
	tr, err := newRealTier(realConfig{Work: time.Millisecond, Target: 0.9, QueueDeadline: defaultQueueDeadline, Cores: 1})
	require.NoError(t, err)
	defer tr.sh.Close()
	defer tr.lim.Close()
	c := &control{t: tr}
	ps := newPhaseStats(1)
	begin := time.Now()
	c.measure(begin, 20*time.Second, ps)
	// Say the rest of the machine used 1.8 s of CPU in the 180 ms from the
	// start to the first tick: 10 cores. (The machine's own use between the
	// two reads here adds a few hundredths of a core at most.)
	c.probe.machine -= 1800 * time.Millisecond
	c.probe.steal -= 180 * time.Millisecond
	c.record(begin.Add(180*time.Millisecond), 0.9)
	require.Len(t, c.periods, 1)
	p := c.periods[0]
	require.InDelta(t, 10, p.others, 1, "other processes' CPU, in cores, over the period's 180 ms")
	require.InDelta(t, 1, p.steal, 0.5, "steal, in cores, over the period's 180 ms")
}
