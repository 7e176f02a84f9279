package aimd_test

import (
	"math"
	"testing"

	"github.com/tierkit/tierkit/aimd"
)

// FuzzUpdate: for any limit, load and parameters with Min <= Max, every step keeps
// the limit within [Min, Max], and a run of steps never leaves it.
func FuzzUpdate(f *testing.F) {
	f.Add(100.0, 0.5, 0.9, 1.0, 0.5, 0.7, 1.0, 1000.0)
	f.Add(1.0, math.Inf(1), 0.9, 1.0, 0.5, 0.7, 1.0, 10.0)
	f.Add(math.NaN(), math.NaN(), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
	f.Add(-5.0, -1.0, 2.0, 100.0, 10.0, 0.01, 3.0, 3.0)
	f.Fuzz(func(t *testing.T, limit, load, target, inc, gain, dec, lo, hi float64) {
		for _, v := range []float64{target, inc, gain, dec, lo, hi} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return // the Config validation rejects these
			}
		}
		if lo > hi || dec >= 1 {
			return
		}
		p := aimd.Params{Target: target, Increase: inc, Gain: gain, Decrease: dec, Min: lo, Max: hi}
		for i := range 50 {
			limit = aimd.Update(limit, load, p)
			if !(limit >= lo && limit <= hi) {
				t.Fatalf("step %d: limit %v outside [%v, %v] (load %v)", i, limit, lo, hi, load)
			}
			load = math.Mod(load*1.7+0.3, 3) // wander over loads around the target
		}
	})
}
