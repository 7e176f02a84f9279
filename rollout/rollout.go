package rollout

import (
	"slices"
	"sync/atomic"
)

// Flags evaluates routing flags. It is safe for concurrent use: [Flags.Decide] reads an
// immutable compiled table through one atomic pointer load, and [Flags.SetConfig]
// swaps the whole table at once, so a decision never sees half of a new configuration.
//
// The zero Flags routes nothing (every decision is ReasonNoRule) until SetConfig.
// A Flags must not be copied after first use.
type Flags struct {
	// table is the compiled table, the Config it came from and the number
	// of configurations accepted up to it: one load reads them together.
	table    atomic.Pointer[table]
	rejected atomic.Uint64
}

// Query is one routing question: should this request of Service for Key, from a client
// in Region, go through the gateway?
type Query struct {
	Service string
	Key     string
	Region  string
	// Unit is what the percentage ramp hashes. Empty means Key, so a key stays on
	// the same side as the percentage rises; pass a client id to keep each client on
	// one side instead.
	Unit string
}

// Reason says why a [Decision] came out as it did. The zero Reason is not used.
type Reason uint8

// Reasons, in the order Decide checks them.
const (
	ReasonKilled Reason = iota + 1 // the global kill switch is on
	ReasonNoRule                   // no rule of the service matches the key
	ReasonRegion                   // a rule matches but filters out the region
	ReasonHeld                     // eligible, but the unit hashes above the percentage
	ReasonRamped                   // eligible and inside the percentage: use the gateway
)

var reasonNames = [...]string{"", "killed", "no-rule", "region-filtered", "held-back", "ramped"}

// String returns a short lower-case name of r.
func (r Reason) String() string {
	if int(r) < len(reasonNames) && r != 0 {
		return reasonNames[r]
	}
	return "unknown"
}

// Decision is the answer to a [Query], with its explanation.
type Decision struct {
	// Use reports whether the request goes through the gateway.
	Use bool
	// Reason says why.
	Reason Reason
	// Rule is the index in Config.Rules of the rule that matched, or -1.
	Rule int
	// Bucket is the unit's hash in [0, 10000) compared with the rule's basis points
	// (Use == Bucket < Percent*100 rounded to the nearest integer); meaningful for
	// ReasonHeld and ReasonRamped.
	Bucket uint32
}

// Stats is a snapshot of a Flags' counters. Decisions are not counted, so the decision
// path writes no shared memory; count them at the caller if needed. Its figures are
// of one moment, also under a concurrent SetConfig: Rules and Killed are those of
// the Swaps-th configuration accepted.
type Stats struct {
	Swaps    uint64 // configurations accepted, including the one given to New
	Rejected uint64 // configurations rejected by SetConfig
	Rules    int    // rules in force
	Killed   bool   // whether the kill switch is on
}

// New returns Flags evaluating cfg, or an error wrapping [ErrInvalidConfig].
func New(cfg Config) (*Flags, error) {
	f := &Flags{}
	if err := f.SetConfig(cfg); err != nil {
		return nil, err
	}
	return f, nil
}

// SetConfig validates cfg, compiles it and swaps it in atomically. On error it returns
// an error wrapping [ErrInvalidConfig] and the previous configuration stays in force.
// cfg is copied: later changes to its slices do not affect f.
func (f *Flags) SetConfig(cfg Config) error {
	if err := cfg.validate(); err != nil {
		f.rejected.Add(1)
		return err
	}
	c := Config{Kill: cfg.Kill, Rules: slices.Clone(cfg.Rules)}
	for i := range c.Rules {
		c.Rules[i].Regions = slices.Clone(c.Rules[i].Regions)
	}
	t := compile(c)
	t.cfg = &c
	// The count travels with the table, so that Stats reads them in one load:
	// a counter added to after the store would lag the table it counts.
	for {
		old := f.table.Load()
		t.swaps = 1
		if old != nil {
			t.swaps = old.swaps + 1
		}
		if f.table.CompareAndSwap(old, t) {
			return nil
		}
	}
}

// Config returns a copy of the configuration in force.
func (f *Flags) Config() Config {
	p := f.load().cfg
	if p == nil {
		return Config{}
	}
	c := *p
	c.Rules = slices.Clone(c.Rules)
	for i := range c.Rules {
		c.Rules[i].Regions = slices.Clone(c.Rules[i].Regions)
	}
	return c
}

// Decide answers q. It does not allocate. The checks run in the order of the
// [Reason] constants: kill switch, longest matching prefix of the service, region
// filter, then the percentage ramp on the hash of q.Unit (or q.Key).
func (f *Flags) Decide(q Query) Decision {
	t := f.load()
	if t.kill {
		return Decision{Reason: ReasonKilled, Rule: -1}
	}
	s := t.services[q.Service]
	if s == nil {
		return Decision{Reason: ReasonNoRule, Rule: -1}
	}
	r := s.match(q.Key)
	if r == nil {
		return Decision{Reason: ReasonNoRule, Rule: -1}
	}
	if !r.allows(q.Region) {
		return Decision{Reason: ReasonRegion, Rule: r.index}
	}
	unit := q.Unit
	if unit == "" {
		unit = q.Key
	}
	b := bucket(r.seed, unit)
	if b < r.bp {
		return Decision{Use: true, Reason: ReasonRamped, Rule: r.index, Bucket: b}
	}
	return Decision{Reason: ReasonHeld, Rule: r.index, Bucket: b}
}

// Use reports whether q goes through the gateway; it is Decide(q).Use.
func (f *Flags) Use(q Query) bool { return f.Decide(q).Use }

// Stats returns a snapshot of f's counters.
func (f *Flags) Stats() Stats {
	for {
		t := f.load()
		rejected := f.rejected.Load()
		// The table was t when rejected was read if it still is: a table is
		// stored once, and t, held here, cannot be freed and its address reused.
		if f.load() == t {
			return Stats{Swaps: t.swaps, Rejected: rejected, Rules: t.rules, Killed: t.kill}
		}
	}
}

// empty is the table of a zero Flags: it routes nothing.
var empty = &table{}

func (f *Flags) load() *table {
	if t := f.table.Load(); t != nil {
		return t
	}
	return empty
}
