package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tierkit/tierkit/failover"
)

func init() {
	sections = append(sections, section{order: 110, name: "failover",
		title: "cross-region routing: fires on a sharp signal before overload, no flapping", run: tourFailover})
}

// tourFailover ramps one region's demand up and back down and prints when the real
// router starts and stops spilling, with the region's mean CPU at those moments.
func tourFailover(w io.Writer) error {
	names := []string{"a1", "a2", "b1", "b2"}
	router, err := newFailoverRouter(names)
	if err != nil {
		return err
	}
	served := 0.0
	share := 0.0
	var fired, stopped, crossed int = -1, -1, -1
	peak := 0.0
	flips, on := map[failover.Route]int{}, map[failover.Route]bool{}
	for t := range 160 {
		u := failoverDemand(t)
		served = u * (1 - share)
		peak = max(peak, served)
		if crossed < 0 && u >= 0.9 {
			crossed = t
		}
		tab, err := router.Step(time.Unix(int64(t)*60, 0), failoverLoads(names, u, served))
		if err != nil {
			return err
		}
		on = tallyRoutes(flips, on, tab.Routes)
		d := tab.Regions[2]
		if d.Phase == failover.Spilling && fired < 0 {
			fired = t
			fmt.Fprintf(w, "   run %3d: b1 mean CPU %.2f (demand %.2f of capacity) -> %s\n", t, served, u, d.Reason)
			for _, r := range tab.Out("b1") {
				fmt.Fprintf(w, "            route b1 -> %s %.1f%% (%s)\n", r.To, 100*r.Share, r.Mechanism)
			}
		}
		if fired >= 0 && stopped < 0 && d.Phase == failover.Local {
			stopped = t
			fmt.Fprintf(w, "   run %3d: b1 back to local at demand %.2f -> %s\n", t, u, d.Reason)
		}
		share = d.Out
	}
	st := router.Stats()
	// The section's claims are checked, not assumed: it fired before the
	// demand crossed 90% of capacity, and it started and ended spilling once.
	if fired < 0 || crossed < 0 || fired > crossed {
		return fmt.Errorf("failover: spilling started at run %d, the demand crossed 90%% at run %d: it did not fire first", fired, crossed)
	}
	if st.SpillStarts != 1 || st.SpillEnds > 1 {
		return fmt.Errorf("failover: %d spill starts and %d ends over the day: it flapped", st.SpillStarts, st.SpillEnds)
	}
	if err := verify(failoverRouteClaims(flips, st.RouteChanges)...); err != nil {
		return err
	}
	fmt.Fprintf(w, "   b1's demand crossed 90%% of capacity at run %d; spilling started %d runs earlier; b1 peaked at %.2f mean CPU\n",
		crossed, crossed-fired, peak)
	fmt.Fprintf(w, "   %d runs: %d spill start(s), %d end(s), %d route on/off changes (no flapping)\n",
		st.Runs, st.SpillStarts, st.SpillEnds, st.RouteChanges)
	return nil
}

// tallyRoutes counts in flips each route (its ends and mechanism) that
// routes, one run's table, turns on or off against on, the routes of the
// run before, and returns the routes now on.
func tallyRoutes(flips map[failover.Route]int, on map[failover.Route]bool, routes []failover.Route) map[failover.Route]bool {
	now := make(map[failover.Route]bool, len(routes))
	for _, r := range routes {
		r.Share = 0
		now[r] = true
		if !on[r] {
			flips[r]++
		}
	}
	for r := range on {
		if !now[r] {
			flips[r]++
		}
	}
	return now
}

// failoverRouteClaims is what the last line states of routes: the router's
// count of route on/off changes (changes, from Stats) is the tables' (flips,
// per route), and none flapped: every route was turned on once and off at
// most once.
func failoverRouteClaims(flips map[failover.Route]int, changes uint64) []claim {
	total, flapped := 0, []string(nil)
	for r, n := range flips {
		total += n
		if n > 2 {
			flapped = append(flapped, fmt.Sprintf("%s -> %s (%s) %d times", r.From, r.To, r.Mechanism, n))
		}
	}
	slices.Sort(flapped)
	return []claim{
		{uint64(total) == changes, fmt.Sprintf("%d route on/off changes in the tables, not %d counted", total, changes)},
		{len(flapped) == 0, fmt.Sprintf("no flapping: every route turned on once and off at most once, not %s", strings.Join(flapped, ", "))},
	}
}

// newFailoverRouter builds the section's router: the regions named a* are in
// mega-region east, b* in west, each with every spill mechanism at 100%.
func newFailoverRouter(names []string) (*failover.Router, error) {
	cfg := failover.Config{Tier: "tour"}
	for _, n := range names {
		r := failover.Region{Name: n, Mega: map[byte]string{'a': "east", 'b': "west"}[n[0]],
			Knobs: failover.Knobs{Ring: 100, Mega: 100, Global: 100}}
		cfg.Regions = append(cfg.Regions, r)
	}
	return failover.New(cfg)
}

// failoverDemand is b1's demand at run t, as a share of its capacity: 55% for 10
// runs, +1 point per run up to 95%, hold 30 runs, back down.
func failoverDemand(t int) float64 {
	switch {
	case t < 10:
		return 0.55
	case t < 50:
		return 0.55 + 0.01*float64(t-10)
	case t < 80:
		return 0.95
	case t < 120:
		return 0.95 - 0.01*float64(t-80)
	}
	return 0.55
}

// failoverLoads is one run's input: b1 asks for u of its capacity and its hosts
// run at served (what it keeps after spilling); every other region sits at 50%.
func failoverLoads(names []string, u, served float64) []failover.Load {
	loads := make([]failover.Load, len(names))
	for i, n := range names {
		x := 0.5
		if n == "b1" {
			x = served
		}
		loads[i] = failover.Load{Region: n, Demand: 1000 * map[bool]float64{true: u, false: 0.5}[n == "b1"], Capacity: 1000, HostCPU: failoverHosts(x)}
	}
	return loads
}

// failoverHosts is the CPU of a region's 50 hosts at mean u, spread so the p90 is
// about 1.05 x the mean.
func failoverHosts(u float64) []float64 {
	h := make([]float64, 50)
	for i := range h {
		h[i] = u * (0.93 + 0.14*float64(i)/49) // p90 about 1.05 x mean
	}
	return h
}
