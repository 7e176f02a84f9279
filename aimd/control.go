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
	// Backoff is the fraction of the excess over Target that one step
	// corrects: above Target the factor is 1 - Backoff x (load - Target)/load,
	// still bounded below by Decrease. Zero means 1, the full correction
	// (Target/load). A smaller Backoff, with a small Increase and a Gain of
	// about the same size, turns the loop into a proportional one that
	// corrects the same fraction of the error either way: a noisy signal then
	// moves the limit less (see the package documentation). A [Limiter]
	// escalates it while the load stays above Target ([EscalatedBackoff]).
	Backoff float64
	// Min and Max clamp the result. Min should not exceed Max (a [Config]
	// with Min above Max is refused); if it does, the result is Max.
	Min, Max float64
}

// Update is the pure AIMD step: it returns the next limit given the current limit
// and the measured load. At or below Target it adds Increase plus the headroom
// term (see [Params.Gain]); above Target it multiplies by max(Decrease,
// 1 - Backoff x (load-Target)/load) (Target/load with the default Backoff).
// The result is always within [Min, Max] (it is Max when Min exceeds Max); a
// load that is NaN or negative carries no information and leaves the (clamped)
// limit unchanged, and an infinite load multiplies by Decrease.
func Update(limit, load float64, p Params) float64 {
	if math.IsNaN(limit) {
		limit = p.Min
	}
	switch {
	case math.IsNaN(load) || load < 0:
	case load > p.Target:
		f := p.Decrease
		if !math.IsInf(load, 1) {
			b := p.Backoff
			if b <= 0 || b > 1 || math.IsNaN(b) {
				b = 1
			}
			f = max(p.Decrease, 1-b*(load-p.Target)/load)
		}
		limit *= f
	default:
		head := 0.0
		if p.Target > 0 {
			head = (p.Target - load) / p.Target
		}
		inc := p.Increase
		if head > 0 { // at the target, Gain x limit may overflow, and Inf x 0 is NaN
			inc += p.Gain * limit * head
		}
		limit += inc
	}
	return clampF(limit, p.Min, p.Max)
}

// EscalatedBackoff returns the Backoff of the run-th consecutive step above
// the target (run >= 1): base for the first two, then doubled at each further
// step, up to 1 (the full correction). One or two readings above the target
// are as likely noise as overload, and are corrected by base; a longer run is
// overload, and after a few more steps is
// corrected in full, so a saturated signal (a CPU reading stuck at 100%, whose
// excess is unknown) still drives the limit down as fast as the full
// correction does. base outside (0, 1] means 1.
func EscalatedBackoff(base float64, run int) float64 {
	if !(base > 0 && base <= 1) {
		return 1
	}
	for i := 2; i < run && base < 1; i++ {
		base *= 2
	}
	return min(base, 1)
}

// clampF clamps v into [lo, hi]; NaN counts as below lo. With lo above hi
// (no value is within) the result is hi, whatever v: a result that depends
// on v would jump between the bounds, an increase giving less than a cut.
func clampF(v, lo, hi float64) float64 {
	if math.IsNaN(v) || v < lo {
		v = lo
	}
	return min(v, hi)
}

// RecoverState is what fast recovery ([Recover]) remembers between steps.
type RecoverState struct {
	// Mark is the limit the loop held before its latest run of cuts, until
	// the limit is back at it (0: none).
	Mark float64
	// Settling is set for the one step after the limit was brought back to
	// Mark: that step's reading still covers the period before, at the lower
	// limit, so Mark caps it rather than letting Gain read it as headroom.
	Settling bool
}

// Recover is the fast-recovery rule that a [Limiter] with [Config.Recover]
// applies after each [Update]. limit is the value before the step and next the
// one Update returned; it returns the next limit and state.
//
// A step above Target (a cut) with no mark set marks limit: the last value
// the load was at or below Target with. A step at or below Target while a mark
// is set climbs to the proportional estimate limit x Target/load (the limit
// that would bring the load to Target if it is proportional to the limit),
// but no higher than the mark (nor is Update's own step, which a reading
// taken at the lower limit inflates); the step after the one that reaches the
// mark is capped at the mark too, since its reading still covers the lower
// limit, and then the mark is cleared. So after a cut for a disturbance that has
// passed, such as other processes taking the CPU for a moment, whose load then
// reads well below Target, the limit is back at its earlier value in one or
// two steps instead of Gain's gradual climb, while after a cut for a lasting
// loss of capacity, whose load then reads near Target, next stays as Update
// set it. It never raises the limit above a value the loop held before, so it
// adds no overshoot. A mark below limit (the limit was raised by other
// means since, such as a [Limiter.SetConfig] with a higher Min) is dropped:
// there is nothing to recover, and the step is treated as without a mark.
// Otherwise NaN and negative loads leave both unchanged. The result is
// within [Min, Max].
func Recover(limit, next, load float64, s RecoverState, p Params) (float64, RecoverState) {
	if math.IsNaN(s.Mark) || s.Mark <= 0 || limit > s.Mark {
		// no mark, or one below the limit (raised since by other means,
		// such as a higher Min): no value to climb back to, and "climbing"
		// to it would cut the limit on a low reading
		s = RecoverState{}
	}
	switch {
	case math.IsNaN(load) || load < 0:
		return next, s
	case load > p.Target:
		if s.Mark <= 0 || s.Settling {
			s = RecoverState{Mark: limit}
		}
		return next, s
	case s.Mark <= 0:
		return next, s
	case s.Settling:
		return clampF(min(next, max(limit, s.Mark)), p.Min, p.Max), RecoverState{}
	}
	est := s.Mark
	if load > 0 {
		est = limit * p.Target / load
	}
	next = max(next, est)
	if next >= s.Mark*(1-1e-9) { // reached (a rounding short counts)
		next, s.Settling = s.Mark, true
	}
	next = clampF(next, p.Min, p.Max)
	return next, s
}
