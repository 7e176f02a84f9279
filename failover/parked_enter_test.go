package failover_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestParkedSpillerShedsAtEnter: b1 fired, then its home p90 fell between Exit and
// Target, so it stays Spilling with its share wound down to 0 (parked). Its demand
// then creeps up (no trend to speak of) until Projected is above Enter and stays
// there. A Local region at that load fires and sheds at least DownStep; the parked
// region must not shed less. It shed only a want below MinChange + share, which the
// rise rule drops (nothing at all with Enter close to Target), or a want below a
// DownStep larger than MinChange.
func TestParkedSpillerShedsAtEnter(t *testing.T) {
	tests := []struct {
		name string
		edit func(c *failover.Config)
		u    float64 // b1's final utilization: hosts(u) give a p90 of 1.0447 u
	}{
		// Projected 0.7627 >= Enter 0.76: want 0.0166, below MinChange
		{"Enter close to Target", func(c *failover.Config) { c.Enter = 0.76 }, 0.73},
		// Projected 0.8045 >= Enter 0.80: want 0.068, below DownStep 0.1
		{"DownStep above MinChange", func(c *failover.Config) { c.DownStep = 0.1 }, 0.77},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := six()
			tt.edit(&cfg)
			r := mustNew(t, cfg)
			step := func(u float64) failover.RegionDecision {
				tab, err := r.Step(t0, loads(0.4, map[string]float64{"b1": u}))
				require.NoError(t, err)
				return decision(tab, "b1")
			}
			require.Equal(t, failover.Spilling, step(0.95).Phase)
			var d failover.RegionDecision
			for range 60 {
				d = step(0.70)
			}
			require.Equal(t, failover.Spilling, d.Phase, "home p90 above Exit: still spilling")
			require.Zero(t, d.Want, "wound down")
			// creep up 0.0001 per run, then hold: the trend fades
			for u := 0.70; u < tt.u; u += 0.0001 {
				d = step(u)
			}
			for range 40 {
				d = step(tt.u)
			}
			require.GreaterOrEqual(t, d.Signal.Projected, cfg.Enter, "%+v", d.Signal)

			local := mustNew(t, cfg)
			tab, err := local.Step(t0, loads(0.4, map[string]float64{"b1": tt.u}))
			require.NoError(t, err)
			fresh := decision(tab, "b1")
			require.Equal(t, failover.Spilling, fresh.Phase, "a Local region fires here")
			assert.GreaterOrEqual(t, d.Want, fresh.Want, "parked region sheds less than a Local one: %+v", d)
			assert.GreaterOrEqual(t, d.Want, r.Config().DownStep, "%+v", d)
			assert.Positive(t, d.Out)
		})
	}
}
