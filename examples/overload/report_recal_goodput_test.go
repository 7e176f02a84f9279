package main

import (
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestGoodputAgainstMeanCalibration: goodput against a calibration counts
// the work served within the deadline in that calibration's unit (a request
// of cost c is c x Work plus the calibration's overhead) over the capacity
// that calibration gives. The figure against the mean of the calibrations
// before and after the run (-recal) divided units of the calibration before
// the run by the mean's capacity: at cost 4 the overhead it charged a request
// was the one before, and the difference in the unit moved the noisy
// requests' share by 3/4 of the calibrations' difference.
func TestGoodputAgainstMeanCalibration(t *testing.T) {
	r := &realResult{
		cfg: realConfig{Duration: time.Second, Work: 200 * time.Microsecond, Target: 0.9, Cores: 2,
			NoisyCost: 4, Recal: time.Second},
		cpuPerReq:      210 * time.Microsecond,
		cpuPerReqAfter: 250 * time.Microsecond,
		warm:           newPhaseStats(1350),
		run:            newPhaseStats(1350),
	}
	r.capacity = r.cfg.Target * r.cfg.Cores / r.cpuPerReq.Seconds()
	// 1,000 noisy requests of cost 4 served within the deadline in 1 s.
	r.run.inDeadline[1].Add(1000)
	r.run.costInDeadline[1].Add(4000)
	var b stringsBuilder
	r.print(&b)
	read := func(re string) float64 {
		m := regexp.MustCompile(re).FindStringSubmatch(b.String())
		require.NotNil(t, m, "%s in\n%s", re, b.String())
		v, err := strconv.ParseFloat(m[1], 64)
		require.NoError(t, err)
		return v
	}
	// Against a calibration of per per request, the work served is
	// 1,000 x (4 x 200 µs + (per - 200 µs)) of the 1.8 s of CPU the target
	// gives in 1 s.
	want := func(per float64) float64 { return 100 * 1000 * (4*200 + per - 200) / 1.8e6 }
	require.InDelta(t, want(210), read(`goodput: ([0-9.]+)%`), 0.01, "against the calibration before the run")
	require.InDelta(t, want(230), read(`goodput against the mean of the calibrations before and after the run: ([0-9.]+)%`), 0.01,
		"against the mean of the calibrations")
}
