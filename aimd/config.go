package aimd

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"time"
)

// Defaults applied to zero Config fields.
const (
	DefaultTarget     = 0.9
	DefaultPeriod     = 100 * time.Millisecond
	DefaultMin        = 1
	DefaultMax        = 1000
	DefaultIncrease   = 1.0
	DefaultGain       = 0.5
	DefaultDecrease   = 0.7
	DefaultMemoryHigh = 0.9
	DefaultMemoryLow  = 0.8
)

// MaxLimit is the largest concurrency limit. The limit is kept as a float64,
// which holds every integer up to 2^53 exactly (on 32-bit platforms, up to
// math.MaxInt); a larger Min, Max or Initial counts as MaxLimit, so that the
// limit never rounds past what an int holds.
const MaxLimit = min(math.MaxInt, 1<<53)

// Config holds the tunables of a [Limiter]. A zero field means the documented
// default; every field can be changed at runtime with [Limiter.SetConfig].
type Config struct {
	// Signal is the load measurement. If nil, a [CgroupCPU] when the process's
	// cgroup CPU accounting is readable and its quota is no more than the
	// CPUs the process can run on (runtime.NumCPU), else a [ProcessCPU]
	// (against GOMAXPROCS, which the runtime caps at those CPUs). With no
	// quota on the way up (a process outside any container), the CgroupCPU
	// reads its cgroup's usage against every CPU: every process in that
	// cgroup counts, the whole machine's in the root cgroup, so other work on
	// the host lowers the limit too; set a [ProcessCPU] to regulate on this
	// process's CPU alone. That choice
	// is made when the default is built (New, or a SetConfig that replaces
	// an explicit Signal with nil) and kept across SetConfig: a quota changed
	// later (raised above the CPUs, or removed) is not re-detected; set
	// Signal nil again from a non-nil one, or build a new Limiter. A nil
	// SignalFunc is not nil: it is refused with [ErrInvalidConfig], as are
	// nil pointers of this package's signal types (*ProcessCPU, *CgroupCPU,
	// *Latency, *SchedLatency, *MaxOf), whose Sample would panic at every
	// step, and a [MaxOf] (or *MaxOf) with a component whose Signal is nil
	// or one of those, or whose Target is not a positive finite number, or
	// without components (or holding such a MaxOf), which reads NaN at
	// every step and never moves the limit, or one that holds itself, whose
	// Sample never returns.
	Signal Signal
	// Target is the load to hold. Default 0.9 (90% CPU).
	Target float64
	// Period is the control period: one step per period, and the token bucket
	// holds at most one period of tokens (one token when the rate earns fewer
	// in a period). Default 100ms.
	Period time.Duration
	// Manual stops the Limiter from stepping on its own (lazily, on the first
	// admission after each Period); the caller drives it with [Limiter.Tick].
	Manual bool

	// Min, Max and Initial bound and start the concurrency limit. Defaults 1,
	// 1000 and Max. Values above [MaxLimit] count as MaxLimit, so Max:
	// math.MaxInt means no upper bound.
	Min, Max, Initial int
	// Increase is the additive step of the concurrency limit. Default 1.
	Increase float64
	// Gain scales the headroom term of the increase (see [Params.Gain]).
	// Default 0.5; a negative Gain means 0 (textbook AIMD).
	Gain float64
	// Decrease is the smallest multiplicative factor of one step (see
	// [Params.Decrease]), in (0, 1). Default 0.7.
	Decrease float64
	// Backoff is the fraction of the excess over Target one step corrects
	// (see [Params.Backoff]), in [0, 1]. Zero means 1: the full correction.
	Backoff float64
	// Recover turns on fast recovery (see [Recover]): after the loop cut the
	// limit (and the rate), a load that reads well below Target brings them
	// back toward the values held before the cut at once, up to those values,
	// rather than by the gradual climb of Increase and Gain. It suits loads
	// disturbed by short outside events (other processes on the machine, a
	// stall) that pass. Default off.
	Recover bool

	// MaxRate enables the token bucket: admissions per second, regulated
	// between MinRate and MaxRate by the same loop (starting at MaxRate) with
	// the additive step RateIncrease (default MaxRate/100). Zero disables it.
	MinRate, MaxRate, RateIncrease float64

	// MemoryLimit is the heap limit the memory guard watches, in bytes. Zero
	// means the Go memory limit (GOMEMLIMIT, or what debug.SetMemoryLimit set
	// since), read again at each step, so the guard follows its changes; no
	// guard while there is none. A Go memory limit of exactly 0
	// (debug.SetMemoryLimit(0), GOMEMLIMIT=0) counts as none too: every
	// heap is above it, and a guard on it would reject all work. Negative
	// disables the guard.
	MemoryLimit int64
	// MemoryHigh and MemoryLow are the fractions of MemoryLimit at which the
	// guard trips (new work fails with ErrMemory) and resets. Defaults 0.9
	// and 0.8. The defaults apply to each field alone: a MemoryHigh below 0.8
	// needs a MemoryLow as well, or the default MemoryLow exceeds it and the
	// Config is rejected.
	MemoryHigh, MemoryLow float64
	// HeapBytes reports the Go memory the guard compares with the limit. If
	// nil, the Go memory in use, read with runtime/metrics: total mapped,
	// less the heap released to the OS and the free heap, and less the heap
	// objects allocated since the last collection (beyond the live heap it
	// marked) when the Go memory limit is at or below the guard's (always
	// with a MemoryLimit of zero), as the collector then runs, and marks or
	// frees them, as the memory nears that limit; under a MemoryLimit below
	// the Go memory limit, or with none, they count, as no collection need
	// run before the memory passes the guard's limit. Called once in New, so that the guard
	// applies before the first step, and once per step, outside the lock:
	// a step calls the HeapBytes in force when it began, so a SetConfig
	// that replaces it while a step runs leaves that step its reading, of
	// the one replaced, judged under the new limit and marks, as SetConfig
	// judges the last reading; the next step reads the new one.
	HeapBytes func() uint64
}

type config struct {
	Config
	limitP, rateP Params
	memLimit      float64 // 0: no guard
	// defaultSig: Signal was nil, so the Limiter uses the default one
	// (withSignal), which SetConfig keeps across calls.
	defaultSig bool
	// given is the Config as New or SetConfig got it, for [Limiter.Config].
	given Config
}

// validate applies the defaults to c, or reports every field out of range, as
// an errors.Join of errors that each wrap [ErrInvalidConfig].
func (c Config) validate() (config, error) {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("aimd: "+format+": %w", append(args, ErrInvalidConfig)...))
	}
	bounds, marks := c.checkFields(bad)
	v := c.filled()
	v.checkFilled(bounds, marks, bad)
	if len(errs) > 0 {
		return config{}, errors.Join(errs...)
	}
	v.derive()
	return v, nil
}

// checkFields reports each field of c that is wrong on its own, one error
// per field, and whether Min, Max and Initial are all non-negative (a
// negative bound is named alone, and the range checks of checkFilled, which
// it would fail too, are skipped) and whether MemoryHigh and MemoryLow are
// fractions (the same for their order). A non-finite figure is reported as
// such, not also as out of its range.
func (c Config) checkFields(bad func(format string, args ...any)) (bounds, marks bool) {
	if name := nilSignal(c.Signal); name != "" {
		bad("Signal is a nil %s", name) // it would panic at every step
	}
	if m, ok := asMaxOf(c.Signal); ok && m.cyclic() {
		// Its Sample, and the checks below, would recurse until the stack
		// overflows, a fatal error that ends the process.
		bad("Signal is a MaxOf that holds itself")
	} else if ok {
		if m.lacksSignal() {
			bad("Signal is a MaxOf with a component without a Signal") // the same
		}
		if m.badTarget() {
			bad("Signal is a MaxOf with a component whose Target is not a positive finite number") // never counted
		}
		if m.lacksComponent() {
			bad("Signal is a MaxOf without components, or holds one") // reads NaN at every step
		}
	}
	if c.Target < 0 || math.IsNaN(c.Target) || math.IsInf(c.Target, 0) {
		bad("Target %v is not a finite non-negative number", c.Target)
	}
	if c.Period < 0 {
		bad("Period %v is negative", c.Period)
	}
	bounds = true
	for _, f := range []struct {
		name string
		v    int
	}{{"Min", c.Min}, {"Max", c.Max}, {"Initial", c.Initial}} {
		if f.v < 0 {
			bad("%s %d is negative", f.name, f.v)
			bounds = false
		}
	}
	// finite reports a non-finite figure, and whether v is finite
	finite := func(name string, v float64) bool {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			bad("%s %v is not a finite number", name, v)
			return false
		}
		return true
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"Increase", c.Increase}, {"RateIncrease", c.RateIncrease}, {"MinRate", c.MinRate}, {"MaxRate", c.MaxRate}} {
		if finite(f.name, f.v) && f.v < 0 {
			bad("%s %v is negative", f.name, f.v)
		}
	}
	finite("Gain", c.Gain)
	if finite("Decrease", c.Decrease) && (c.Decrease < 0 || c.Decrease >= 1) {
		bad("Decrease %v not in (0, 1)", c.Decrease)
	}
	if c.Backoff < 0 || c.Backoff > 1 || math.IsNaN(c.Backoff) {
		bad("Backoff %v not in [0, 1]", c.Backoff)
	}
	if c.MinRate >= 0 && c.MaxRate > 0 && c.MinRate > c.MaxRate && !math.IsInf(c.MinRate, 1) {
		bad("rate bounds [%v, %v] invalid", c.MinRate, c.MaxRate)
	}
	marks = true
	for _, f := range []struct {
		name string
		v    float64
	}{{"MemoryHigh", c.MemoryHigh}, {"MemoryLow", c.MemoryLow}} {
		switch {
		case !finite(f.name, f.v):
			marks = false
		case f.v < 0 || f.v > 1:
			bad("%s %v not in [0, 1]", f.name, f.v)
			marks = false
		}
	}
	return bounds, marks
}

// filled is c with its zero fields given their defaults.
func (c Config) filled() config {
	v := config{Config: c, given: c}
	v.Target = orF(c.Target, DefaultTarget)
	v.Period = or(c.Period, DefaultPeriod)
	v.Min = min(or(c.Min, DefaultMin), MaxLimit)
	v.Max = min(or(c.Max, DefaultMax), MaxLimit)
	v.Initial = min(or(c.Initial, v.Max), MaxLimit)
	v.Increase = orF(c.Increase, DefaultIncrease)
	v.Gain = orF(c.Gain, DefaultGain)
	v.Gain = max(v.Gain, 0)
	v.Decrease = orF(c.Decrease, DefaultDecrease)
	v.RateIncrease = orF(c.RateIncrease, c.MaxRate/100)
	v.MemoryHigh = orF(c.MemoryHigh, DefaultMemoryHigh)
	v.MemoryLow = orF(c.MemoryLow, DefaultMemoryLow)
	return v
}

// checkFilled reports the fields that are wrong together once defaulted.
func (v *config) checkFilled(bounds, marks bool, bad func(format string, args ...any)) {
	if bounds && v.Min > v.Max {
		bad("Min %d exceeds Max %d", v.Min, v.Max)
	}
	if bounds && v.Min <= v.Max && (v.Initial < v.Min || v.Initial > v.Max) {
		bad("Initial %d not in [%d, %d]", v.Initial, v.Min, v.Max)
	}
	if marks && v.MemoryLow > v.MemoryHigh {
		bad("MemoryLow %v exceeds MemoryHigh %v", v.MemoryLow, v.MemoryHigh)
	}
}

// derive sets what a valid, defaulted config computes from its fields.
func (v *config) derive() {
	v.limitP = Params{Target: v.Target, Increase: v.Increase, Gain: v.Gain, Decrease: v.Decrease,
		Backoff: v.Backoff, Min: float64(v.Min), Max: float64(v.Max)}
	v.rateP = Params{Target: v.Target, Increase: v.RateIncrease, Gain: v.Gain, Decrease: v.Decrease,
		Backoff: v.Backoff, Min: v.MinRate, Max: v.MaxRate}
	switch {
	case v.MemoryLimit > 0:
		v.memLimit = float64(v.MemoryLimit)
	case v.MemoryLimit == 0:
		v.memLimit = goMemLimit() // and again at each step
	}
	if v.HeapBytes == nil {
		limit := v.MemoryLimit
		v.HeapBytes = func() uint64 { return goMemory(limit) }
	}
	// A nil Signal means the default one, which New makes and SetConfig
	// keeps (withSignal): not made here, where SetConfig would throw it away.
	v.defaultSig = v.Signal == nil
}

// withSignal gives c the default signal when its Signal was nil: prev's if
// prev has the default one too (it has its baseline: a new one's first
// sample is NaN, and a SetConfig every period would freeze the loop), else a
// new one.
func (c *config) withSignal(prev *config) {
	switch {
	case !c.defaultSig:
	case prev != nil && prev.defaultSig:
		c.Signal = prev.Signal
	default:
		c.Signal = defaultSignal()
	}
}

// defaultSignal prefers the cgroup's accounting when it is readable and its
// quota is no more than the CPUs the process can run on: above them,
// CgroupCPU never reads 1 (see its doc), while GOMAXPROCS, which ProcessCPU
// measures against, is capped at those CPUs.
func defaultSignal() Signal { return defaultSignalIn("") }

// defaultSignalIn is defaultSignal on the files under root (CgroupCPU.Root).
func defaultSignalIn(root string) Signal {
	if _, cores, err := (&CgroupCPU{Root: root}).Read(); err == nil && cores <= float64(runtime.NumCPU()) {
		return &CgroupCPU{Root: root}
	}
	return &ProcessCPU{}
}

func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

func orF(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

// sameSignal reports whether a and b are the same Signal: equal values, or
// slices (a MaxOf) with the same elements in the same memory. Values that
// cannot be compared (a SignalFunc, a struct holding a MaxOf) count as
// different.
func sameSignal(a, b Signal) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	switch {
	case va.Type() != vb.Type():
		return false
	case va.Kind() == reflect.Slice:
		return va.Pointer() == vb.Pointer() && va.Len() == vb.Len()
	}
	return va.Comparable() && vb.Comparable() && va.Equal(vb)
}
