package failover

import (
	"fmt"
	"math"
	"unicode/utf8"
)

// Config describes one tier's regions, how they back each other up, and the signal.
// Zero numeric fields take the documented defaults, except the [Knobs], where zero
// means the mechanism is off: every mechanism is opt-in.
type Config struct {
	// Tier names the tier (informational, in errors and evidence).
	Tier string
	// Regions lists every region of the tier; names are unique.
	Regions []Region

	// Percentile is the host-CPU percentile the signal reads. Default 0.9.
	// It is the value at index floor(Percentile x n) of the n sorted host
	// CPUs (capped at the last), with Percentile x n taken as the decimal
	// reads (p70 of 90 hosts is index 63, though 0.7 x 90 computes to
	// 62.99999999999999). That is nearest rank (the ceil(Percentile x n)-th
	// smallest) when Percentile x n is fractional, and one rank above it when
	// it is whole, on the cautious side: p90 of 10 hosts is the hottest.
	Percentile float64
	// HotCPU is the host CPU counted as hot. Default 0.85.
	HotCPU float64
	// HotShare is the share of hosts above HotCPU that fires failover by itself.
	// Default 0.2.
	HotShare float64
	// TrendAlpha is the EWMA weight of the per-run change of the percentile. Default 0.3.
	TrendAlpha float64
	// LeadRuns is how many runs ahead the rising trend is projected. Default 5.
	// Zero takes the default, so it cannot be 0: to read Home without the trend,
	// set a tiny value such as 1e-12.
	LeadRuns float64
	// Enter is the projected percentile CPU at which a region starts spilling.
	// Default 0.80.
	Enter float64
	// Exit is the percentile CPU the region would run at with all its demand back
	// home, below which a spilling region stops (after MinHold runs). Default 0.68.
	Exit float64
	// Target is the percentile CPU a spilling region is brought down to. Default 0.75.
	Target float64
	// ReceiverMax is the percentile CPU a receiving region may be filled to.
	// Default 0.75.
	ReceiverMax float64
	// MinHold is the smallest number of runs a region spills once it starts.
	// Default 15.
	MinHold int
	// DownStep is the largest decrease of a region's spill share per run: spill rises
	// at once and winds down slowly, so routes do not flap. Default 0.02.
	DownStep float64
	// MinChange is the smallest rise of a spill share worth publishing; a share falls
	// only when the wanted share is more than 2*MinChange below it. Default 0.02.
	// Zero takes the default, so it cannot be 0: to publish every rise, set a tiny
	// value such as 1e-12.
	MinChange float64
}

// Region is one region of the tier.
type Region struct {
	// Name identifies the region. Required, unique, valid UTF-8 (the JSON form of a
	// [Table] must carry it unchanged).
	Name string
	// Mega is the mega-region: regions with the same non-empty Mega are one locality,
	// and overflow spills among them before going global.
	Mega string
	// Ring declares the regions that back this one up, in what proportion. Spill goes to
	// the ring first, split by Weight (normalized), each backup capped by its headroom.
	Ring []Backup
	// Knobs enable each mechanism for a percentage of the region's clients.
	Knobs Knobs
}

// Backup is one ring member and its share of the ring's spill.
type Backup struct {
	Region string
	Weight float64 // > 0; normalized over the ring
}

// Knobs are the per-mechanism percentages (in [0, 100]) of a region's clients for
// which that mechanism is enabled. The zero Knobs disable failover for the region:
// it never spills (it may still receive).
//
// Each knob applies to what its own mechanism could place (p% of it is routed, the
// rest stays home), not to a split of the region's clients among the mechanisms, so
// the three need not sum to 100: {100, 100, 100} enables every mechanism for every
// client, and a region never sends away more than its wanted share however the
// knobs add up.
type Knobs struct {
	Ring   float64
	Mega   float64
	Global float64
}

func (c Config) withDefaults() Config {
	def := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	def(&c.Percentile, 0.9)
	def(&c.HotCPU, 0.85)
	def(&c.HotShare, 0.2)
	def(&c.TrendAlpha, 0.3)
	def(&c.LeadRuns, 5)
	def(&c.Enter, 0.80)
	def(&c.Exit, 0.68)
	def(&c.Target, 0.75)
	def(&c.ReceiverMax, 0.75)
	def(&c.DownStep, 0.02)
	def(&c.MinChange, 0.02)
	if c.MinHold == 0 {
		c.MinHold = 15
	}
	return c
}

func (c Config) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("failover: tier %q: "+format+": %w", append([]any{c.Tier}, append(args, ErrInvalidConfig)...)...)
	}
	for _, f := range []struct {
		name   string
		v      float64
		lo, hi float64
	}{
		{"Percentile", c.Percentile, 0.5, 1},
		{"HotCPU", c.HotCPU, 0.01, 2},
		{"HotShare", c.HotShare, 1e-9, 1},
		{"TrendAlpha", c.TrendAlpha, 1e-9, 1},
		{"LeadRuns", c.LeadRuns, 0, 1000},
		{"Enter", c.Enter, 0.01, 2},
		{"Exit", c.Exit, 0.01, 2},
		{"Target", c.Target, 0.01, 2},
		{"ReceiverMax", c.ReceiverMax, 0.01, 2},
		{"DownStep", c.DownStep, 1e-9, 1},
		{"MinChange", c.MinChange, 0, 1},
	} {
		if math.IsNaN(f.v) || f.v < f.lo || f.v > f.hi {
			return bad("%s = %v outside [%v, %v]", f.name, f.v, f.lo, f.hi)
		}
	}
	if c.MinHold < 0 {
		return bad("MinHold = %d < 0", c.MinHold)
	}
	if !(c.Exit < c.Target && c.Target <= c.Enter) {
		return bad("need Exit (%v) < Target (%v) <= Enter (%v) for hysteresis", c.Exit, c.Target, c.Enter)
	}
	if len(c.Regions) == 0 {
		return bad("no regions")
	}
	names := make(map[string]bool, len(c.Regions))
	for _, r := range c.Regions {
		if r.Name == "" {
			return bad("region with an empty name")
		}
		if !utf8.ValidString(r.Name) {
			// a table's JSON could not carry it: its routes would not marshal,
			// and its decision would silently name another region (U+FFFD)
			return bad("region name %q not UTF-8", r.Name)
		}
		if names[r.Name] {
			return bad("region %q listed twice", r.Name)
		}
		names[r.Name] = true
	}
	for _, r := range c.Regions {
		for _, k := range []struct {
			name string
			v    float64
		}{{"Ring", r.Knobs.Ring}, {"Mega", r.Knobs.Mega}, {"Global", r.Knobs.Global}} {
			if math.IsNaN(k.v) || k.v < 0 || k.v > 100 {
				return bad("region %q: Knobs.%s %v outside [0, 100]", r.Name, k.name, k.v)
			}
		}
		seen := map[string]bool{}
		for _, b := range r.Ring {
			switch {
			case !names[b.Region]:
				return bad("region %q: ring backup %q is not a region of the tier", r.Name, b.Region)
			case b.Region == r.Name:
				return bad("region %q: ring backs itself up", r.Name)
			case seen[b.Region]:
				return bad("region %q: ring lists %q twice", r.Name, b.Region)
			case math.IsNaN(b.Weight) || math.IsInf(b.Weight, 0) || b.Weight <= 0:
				return bad("region %q: ring weight %v for %q not a finite number > 0", r.Name, b.Weight, b.Region)
			}
			seen[b.Region] = true
		}
	}
	return nil
}
