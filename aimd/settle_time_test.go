package aimd_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestSettleTimeIsTheStepTime: settle reports the control time of the step
// from which the limit stays within 10%, as read on the explicit clock a
// Limiter is ticked on (and as the tour reports it). It reported the time of
// the last step still out of tolerance, one period early, so the package doc
// read 0.2 s where the limit comes within 10% at 0.3 s.
func TestSettleTimeIsTheStepTime(t *testing.T) {
	const period = 100 * time.Millisecond
	for _, capacity := range []float64{50, 100, 400} {
		p := &plant{capacity: capacity}
		l := newPlantLimiter(t, p, int(params.Min))
		now := time.Unix(1_700_000_000, 0)
		p.runLimiter(t, l, &now, 20*time.Second, period)
		p.capacity = 2 * capacity
		change, want := now, 0.9*2*capacity
		var limits []float64
		var from time.Time // the tick from which the limit stays within 10%
		for range 200 {
			now = now.Add(period)
			assert.NoError(t, l.Tick(now))
			limits = append(limits, float64(l.Limit()))
			switch within := math.Abs(float64(l.Limit())-want) <= 0.1*want; {
			case !within:
				from = time.Time{}
			case from.IsZero():
				from = now
			}
		}
		settled, _ := settle(limits, want, 0.1, period)
		assert.Equal(t, from.Sub(change), settled, "capacity %v -> %v", capacity, 2*capacity)
	}
}
