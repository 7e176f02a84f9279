package aimd

import "math"

// Params are the inputs of one control step besides the state and the load.
type Params struct {
	// Target is the load the loop holds (for a CPU signal, a utilization such
	// as 0.9).
	Target float64
	// Increase is the amount added per step while the load is at or below
	// Target.
	Increase float64
	// Gain scales an extra increase proportional to the headroom:
	// Gain x limit x (Target - load) / Target. Zero gives textbook AIMD; with a
	// positive gain the limit climbs fast when capacity appears (after a
	// capacity change or the end of an overload) and slowly near the target,
	// where the constant Increase dominates.
	Gain float64
	// Decrease is the smallest factor a step multiplies by when the load is
	// above Target; the factor is Target/load, bounded below by Decrease, so a
	// small excess backs off a little and a large one by at most 1-Decrease.
	Decrease float64
	// Min and Max clamp the result.
	Min, Max float64
}

// Update is the pure AIMD step: it returns the next limit given the current limit
// and the measured load. At or below Target it adds Increase plus the headroom
// term (see [Params.Gain]); above Target it multiplies by max(Decrease,
// Target/load). The result is always within [Min, Max]; a load that is NaN or
// negative carries no information and leaves the (clamped) limit unchanged, and an
// infinite load multiplies by Decrease.
func Update(limit, load float64, p Params) float64 {
	if math.IsNaN(limit) {
		limit = p.Min
	}
	switch {
	case math.IsNaN(load) || load < 0:
	case load > p.Target:
		f := p.Decrease
		if !math.IsInf(load, 1) {
			f = max(p.Decrease, p.Target/load)
		}
		limit *= f
	default:
		head := 0.0
		if p.Target > 0 {
			head = (p.Target - load) / p.Target
		}
		limit += p.Increase + p.Gain*limit*head
	}
	return clampF(limit, p.Min, p.Max)
}

func clampF(v, lo, hi float64) float64 {
	if math.IsNaN(v) || v < lo {
		return lo
	}
	return min(v, hi)
}
