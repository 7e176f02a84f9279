package main

import (
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOfferedShareOfCapacity: the real mode's "offered" line gives the
// share of the calibrated capacity the mix offers, in the unit goodput
// counts: a request of cost c is c x Work plus the calibration's overhead,
// paid once. It printed 75 + 60 x cost, 315% at cost 4, though a noisy
// request of cost 4 is less than 4 calibrated requests.
func TestOfferedShareOfCapacity(t *testing.T) {
	tests := []struct {
		name      string
		cost      int64
		cpuPerReq time.Duration
		want      int // percent of the capacity
	}{
		{name: "cost 1", cost: 1, cpuPerReq: 210 * time.Microsecond, want: 135},
		{name: "cost 4, 10 µs overhead", cost: 4, cpuPerReq: 210 * time.Microsecond, want: 306}, // 75 + 60 x 810/210
		{name: "cost 4, no overhead", cost: 4, cpuPerReq: 200 * time.Microsecond, want: 315},
		{name: "cost 4, 200 µs overhead", cost: 4, cpuPerReq: 400 * time.Microsecond, want: 225}, // 75 + 60 x 1000/400
	}
	re := regexp.MustCompile(`noisy requests cost \d+ \((\d+)% of the capacity`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &realResult{
				cfg:       realConfig{Duration: time.Second, Work: 200 * time.Microsecond, Target: 0.9, Cores: 2, NoisyCost: tt.cost},
				cpuPerReq: tt.cpuPerReq,
				warm:      newPhaseStats(1350),
				run:       newPhaseStats(1350),
			}
			r.capacity = r.cfg.Target * r.cfg.Cores / r.cpuPerReq.Seconds()
			var b stringsBuilder
			r.print(&b)
			m := re.FindStringSubmatch(b.String())
			require.NotNil(t, m, "the offered line in\n%s", b.String())
			got, err := strconv.Atoi(m[1])
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
