package failover

import (
	"time"

	"github.com/cespare/xxhash/v2"
)

// Load is one region's report for a run.
type Load struct {
	Region string
	// Demand is the request rate originating from the region's clients (any unit).
	Demand float64
	// Capacity is the rate the region's tier serves at 100% CPU, same unit; 0 means the
	// region is down (it receives nothing and spills everything it can). Otherwise it
	// is at least [MinCapacity].
	Capacity float64
	// HostCPU is each host's CPU utilization now (0.7 = 70%): the signal reads its
	// upper percentile and hot share. Empty means "use Demand/Capacity" (an
	// imbalance of 1); a report without them after one with them, or the
	// reverse, is a new baseline of the trend, not a per-run change. Otherwise
	// it lists every host Capacity counts. A scrape that missed some reads
	// another imbalance (one host reads 1, as none does), with nothing to tell
	// it from a change of the load: the step to it and back is read as a fall
	// and a rise, which can fire a steady region. For hosts a scrape missed,
	// send their last readings (as examples/controlplane does for a missed
	// poll), or send no host CPUs for the region.
	HostCPU []float64
}

// MinCapacity is the least nonzero [Load.Capacity], the smallest normal float64
// (about 2.2e-308): below it a capacity is subnormal and has too few bits to hold a
// receiver's headroom (0.75 x 5e-324 rounds up to 5e-324, a receiver filled to 100%
// instead of Config.ReceiverMax), so [Router.Step] refuses it with a [*LoadError].
// Rates are in any unit: pick one in which a live region's capacity is above it.
const MinCapacity = 0x1p-1022

// Mechanism says which failover mechanism carries a route.
type Mechanism uint8

// Mechanisms, in the order spill is placed.
const (
	MechRing   Mechanism = iota + 1 // a declared ring backup
	MechMega                        // a region of the same mega-region
	MechGlobal                      // any region of the global table
)

// String returns the mechanism's short name.
func (m Mechanism) String() string {
	switch m {
	case MechRing:
		return "ring"
	case MechMega:
		return "mega"
	case MechGlobal:
		return "global"
	}
	return "unknown"
}

// Route sends Share of From's demand to To.
type Route struct {
	From, To  string
	Share     float64
	Mechanism Mechanism
}

// Signal is the failover signal of one region in one run.
type Signal struct {
	Mean      float64 // mean host CPU now (what a naive signal reads)
	P         float64 // the Config.Percentile of host CPU now
	HotShare  float64 // share of hosts above Config.HotCPU now
	Home      float64 // percentile CPU serving only its own demand: Demand/Capacity * max(1, P/Mean)
	Trend     float64 // EWMA of the per-run change of Home
	Projected float64 // Home + LeadRuns * max(Trend, 0): what fires and sizes the spill
}

// Phase is a region's failover state.
type Phase uint8

// Phases.
const (
	Local    Phase = iota + 1 // serving its own demand; may receive spill
	Spilling                  // sending part of its demand away; receives nothing
)

// String returns the phase's name.
func (p Phase) String() string {
	switch p {
	case Local:
		return "local"
	case Spilling:
		return "spilling"
	}
	return "unknown"
}

// RegionDecision explains one region's outcome.
type RegionDecision struct {
	Name   string
	Phase  Phase
	Signal Signal
	// Want is the share of the region's demand it should send away, before knobs.
	Want float64
	// Out is the share it does send away (the sum of its routes), after knobs and
	// receivers' headroom.
	Out float64
	// Unplaced is the share it wanted to send, with an enabled mechanism, that no
	// receiver had room for, including when its enabled mechanisms have no member
	// to send to (a Ring knob without a Ring, a Mega knob without other regions in
	// its Mega, a tier of one region).
	Unplaced float64
	// In is the rate received from other regions, over the region's capacity.
	In float64
	// Reason is a one-line account of the decision.
	Reason string
}

// Table is one run's routing table for the tier.
type Table struct {
	Now     time.Time
	Run     uint64
	Routes  []Route          // every non-local route, sorted by From then To
	Regions []RegionDecision // in Config.Regions order
}

// Out returns the routes leaving region from.
func (t *Table) Out(from string) []Route {
	var out []Route
	for _, r := range t.Routes {
		if r.From == from {
			out = append(out, r)
		}
	}
	return out
}

// Pick returns the region that serves a client of region from, identified by unit
// (a client or connection id); it is PickRoute's To, or from when the unit stays home.
func (t *Table) Pick(from, unit string) string {
	if r, ok := t.PickRoute(from, unit); ok {
		return r.To
	}
	return from
}

// PickRoute returns the route a client of region from takes, identified by unit, and
// false when it stays home. The choice is deterministic: the unit hashes to x in
// [0, 1) and takes the first of from's routes (in Table order) whose cumulative share
// exceeds x. Units with x above the region's total spill share stay home, so as the
// share grows units only leave home, and at equal shares a unit keeps its route.
func (t *Table) PickRoute(from, unit string) (Route, bool) {
	x := float64(xxhash.Sum64String(unit)>>11) / (1 << 53)
	acc := 0.0
	for _, r := range t.Routes {
		if r.From != from {
			continue
		}
		acc += r.Share
		if x < acc {
			return r, true
		}
	}
	return Route{}, false
}
