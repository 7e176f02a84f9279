package failover

import (
	"cmp"
	"math"
	"slices"
)

// place turns each spilling region's wanted share into routes: ring backups first (in
// the declared proportions), then the rest of its mega-region, then any region,
// each receiver capped by its headroom (ReceiverMax minus its own projected home
// percentile, at its imbalance, minus what it already took). A mechanism's knob p routes p% of
// what the mechanism could place; the other (100-p)% stays home, and what found no room
// passes to the next mechanism. Regions place theirs in the order of the share of
// their demand they want away (RegionDecision.Want), the largest first, ties in
// declared order: by share, not by amount, so a region wanting 30% of a small demand
// takes the receivers' room before one wanting 20% of a demand ten times larger.
func (r *Router) place(cfg Config, loads map[string]Load, k []float64, t *Table) {
	p := newPlacement(cfg, loads, k, t)
	for _, i := range p.spillOrder() {
		p.spill(i)
	}
	p.finish()
}

// placement is the state of one place run: the receivers' headroom left and
// what each received so far, and the table the routes go to.
type placement struct {
	cfg   Config
	loads map[string]Load
	t     *Table
	idx   map[string]int // region name to index in cfg.Regions
	room  []float64      // per region: the demand it can still receive
	in    []float64      // per region: the demand it received
}

// newPlacement computes each region's headroom: a Local region with capacity
// may receive up to ReceiverMax against its own projected home percentile, at
// its imbalance k; any other region receives nothing.
func newPlacement(cfg Config, loads map[string]Load, k []float64, t *Table) *placement {
	n := len(cfg.Regions)
	p := &placement{cfg: cfg, loads: loads, t: t, idx: make(map[string]int, n),
		room: make([]float64, n), in: make([]float64, n)}
	for i, reg := range cfg.Regions {
		p.idx[reg.Name] = i
		l := loads[reg.Name]
		if t.Regions[i].Phase == Local && l.Capacity > 0 {
			// headroom against the receiver's own projected home percentile
			proj := t.Regions[i].Signal.Projected
			// (capped: a capacity near the float64 maximum times a
			// ReceiverMax above 1 overflows, and spread's proportions of an
			// infinite room are NaN; the headroom is divided by k before the
			// product, so a room the cap cuts is truly above the maximum, not
			// one that would fit once divided by k)
			p.room[i] = min(math.Max(0, l.Capacity*((cfg.ReceiverMax-proj)/k[i])), math.MaxFloat64)
		}
	}
	return p
}

// spillOrder returns the regions that spill and want a share, the largest
// want first (a share of the region's demand, not an amount; ties in declared
// order).
func (p *placement) spillOrder() []int {
	t := p.t
	var order []int
	for i := range p.cfg.Regions {
		if t.Regions[i].Phase == Spilling && t.Regions[i].Want > 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(t.Regions[b].Want, t.Regions[a].Want) })
	return order
}

// spill places region i's wanted demand through its mechanisms in turn (ring,
// mega-region, global) and records what none of them placed.
func (p *placement) spill(i int) {
	reg, l := p.cfg.Regions[i], p.loads[p.cfg.Regions[i].Name]
	rem := p.t.Regions[i].Want * l.Demand
	if len(reg.Ring) > 0 && reg.Knobs.Ring > 0 {
		rem = p.ring(i, rem)
	}
	if reg.Mega != "" && reg.Knobs.Mega > 0 && rem > 0 {
		rem = spread(rem, p.room, func(j int) bool { return j != i && p.cfg.Regions[j].Mega == reg.Mega },
			func(j int, amt float64) { p.route(i, j, amt, reg.Knobs.Mega, MechMega) })
	}
	if reg.Knobs.Global > 0 && rem > 0 {
		rem = spread(rem, p.room, func(j int) bool { return j != i },
			func(j int, amt float64) { p.route(i, j, amt, reg.Knobs.Global, MechGlobal) })
	}
	// A spilling region has a knob on (decide keeps zero-knob regions Local), so
	// what is left found no receiver, even when its mechanisms have no members
	// (a ring knob without a Ring, a mega knob without a Mega): not dropped silently.
	if l.Demand > 0 {
		// capped as route caps a share: with a subnormal demand, Want x Demand
		// has too few bits and rem / Demand reads more than the region wanted
		d := &p.t.Regions[i]
		d.Unplaced = max(0, min(rem/l.Demand, d.Want-d.Out))
	}
}

// ring splits rem, region i's demand to place, over its ring backups in the
// declared proportions, each capped by its room, and returns what is left.
func (p *placement) ring(i int, rem float64) float64 {
	reg := p.cfg.Regions[i]
	// Normalize by the largest weight first, so neither the sum nor
	// total*Weight can overflow.
	maxW, sumW := 0.0, 0.0
	for _, b := range reg.Ring {
		maxW = math.Max(maxW, b.Weight)
	}
	for _, b := range reg.Ring {
		sumW += b.Weight / maxW
	}
	total := rem
	for _, b := range reg.Ring {
		j := p.idx[b.Region]
		give := math.Min(total*(b.Weight/maxW/sumW), math.Max(p.room[j], 0))
		p.route(i, j, give, reg.Knobs.Ring, MechRing)
		rem -= give
	}
	if math.Abs(rem) <= 1e-9*total {
		rem = 0 // rounding residue of the split, not demand the ring had no room for
	}
	return rem
}

// route sends knob% of amount of region i's demand to region j by mechanism m:
// it takes the amount from j's room, adds a route to the table and counts the
// share in i's Out.
func (p *placement) route(i, j int, amount, knob float64, m Mechanism) {
	demand := p.loads[p.cfg.Regions[i].Name].Demand
	// knob/100 is exactly 1 at 100%, so a receiver given its whole
	// room is left with exactly 0, not a residue of an ulp that a
	// later mechanism would fill with a dust route.
	routed := amount * (knob / 100)
	// routed is at most Want x Demand, but divided back by Demand it
	// can round one ulp above 1, or underflow to 0 (no route: a table
	// with a zero share does not decode).
	share := math.Min(routed/demand, 1)
	// and with a subnormal demand, Want x Demand has too few bits: 0.75 x 5e-324
	// rounds to 5e-324 and the share back to 1, more than wanted. A region
	// never sends away more than its Want.
	share = math.Min(share, p.t.Regions[i].Want-p.t.Regions[i].Out)
	if routed <= 0 || share <= 0 {
		return
	}
	p.room[j] -= routed
	// a room is capped at the float64 maximum, but what fills it, added up,
	// can round past it: In would read +Inf, which JSON cannot carry
	p.in[j] = min(p.in[j]+routed, math.MaxFloat64)
	p.t.Routes = append(p.t.Routes, Route{From: p.cfg.Regions[i].Name, To: p.cfg.Regions[j].Name, Share: share, Mechanism: m})
	p.t.Regions[i].Out += share
}

// finish sets each region's In (what it received, over its capacity) and sorts
// the routes by sender, receiver and mechanism.
func (p *placement) finish() {
	for j := range p.cfg.Regions {
		if c := p.loads[p.cfg.Regions[j].Name].Capacity; c > 0 {
			p.t.Regions[j].In = p.in[j] / c
		}
	}
	slices.SortStableFunc(p.t.Routes, func(a, b Route) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.Mechanism, b.Mechanism))
	})
}

// spread places up to rem over the eligible regions in proportion to their room and
// returns what is left.
func spread(rem float64, room []float64, eligible func(int) bool, give func(int, float64)) float64 {
	total, top := 0.0, 0.0
	for j, x := range room {
		if eligible(j) && x > 0 {
			total += x
			top = math.Max(top, x)
		}
	}
	if total <= 0 {
		return rem
	}
	// Rates near the float64 maximum overflow total or placed*x: take the
	// proportions over the largest room instead.
	scaled := 0.0
	for j, x := range room {
		if eligible(j) && x > 0 {
			scaled += x / top
		}
	}
	placed := math.Min(rem, total)
	for j := range room {
		if x := room[j]; eligible(j) && x > 0 {
			if placed < total {
				if p := placed * x; !math.IsInf(p, 1) && !math.IsInf(total, 1) {
					x = p / total
				} else {
					x = placed * (x / top / scaled)
				}
			}
			// else every eligible region is filled: give it exactly its room,
			// since total*x/total can round above or below x, and a residue
			// below would be given out again by the next mechanism.
			give(j, x)
		}
	}
	return rem - placed
}
