package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/tierkit/tierkit/balancer"
)

func init() {
	sections = append(sections, section{order: 100, name: "balancer",
		title: "host weights: guarded steps, keyspace moved, tier-state classification", run: tourBalancer})
}

// tourBalancer runs the real balancer on a small model tier: 200 hosts of 26-126 cores
// with a hidden efficiency, starting from flat weights, then 3% of hosts get hot.
func tourBalancer(w io.Writer) error {
	rng := rand.New(rand.NewPCG(42, 42))
	const n = 200
	hosts := make([]balancer.Host, n)
	eff := make([]float64, n)
	extra := make([]float64, n)
	for i := range hosts {
		c := float64(26 + rng.IntN(101))
		hosts[i] = balancer.Host{ID: fmt.Sprint("h", i), Cores: c, Weight: 1, Region: fmt.Sprint("r", i%4)}
		eff[i] = 0.85 + 0.3*rng.Float64()
	}
	cpu := func() (maxMean float64, over int) {
		var sumW, capEff, sum, mx float64
		for i, h := range hosts {
			sumW += h.Weight
			capEff += h.Cores * eff[i]
		}
		for i := range hosts {
			c := 0.55*capEff*hosts[i].Weight/sumW/(hosts[i].Cores*eff[i]) + extra[i]
			if c > 1 {
				over++
			}
			sum += c
			mx = math.Max(mx, c)
			hosts[i].CPU = math.Max(0.001, math.Min(c, 1)+0.005*rng.NormFloat64())
		}
		return mx / (sum / n), over
	}
	b, err := balancer.New(balancer.Config{})
	if err != nil {
		return err
	}
	var lines strings.Builder // printed once the claims hold
	fmt.Fprintln(&lines, "   200 hosts, 26-126 cores, hidden efficiency 0.85-1.15, target 55% CPU, flat weights at start:")
	runs := make([]balancerRun, 0, balancerRuns)
	for run := range balancerRuns {
		if run == balancerHotRun {
			for _, i := range rng.Perm(n)[:6] {
				extra[i] = 0.25
			}
			fmt.Fprintln(&lines, "   -- 6 hosts (3%) get +25 CPU points their weight does not explain --")
		}
		mm, over := cpu()
		res, err := b.Step(time.Unix(int64(run)*60, 0), hosts)
		if err != nil {
			return err
		}
		runs = append(runs, balancerRun{res.State, mm, over, res.Changed, res.KeyspaceMoved})
		if run < 4 || (run >= 12 && run < 16) || run == 29 {
			fmt.Fprintf(&lines, "   run %2d: max/mean %.3f, %3d hosts >100%%, state %-13s changed %3d, keyspace moved %.3f%%\n",
				run, mm, over, res.State, res.Changed, 100*res.KeyspaceMoved)
		}
		for i, d := range res.Hosts {
			hosts[i].Weight, hosts[i].New = d.New, false
		}
	}
	st := b.Stats()
	if err := verify(balancerClaims(runs, st)...); err != nil {
		return err
	}
	fmt.Fprint(w, lines.String())
	fmt.Fprintf(w, "   %d runs: %d weight changes, %d throttled host-runs, %.2f%% of keyspace moved in total\n",
		st.Runs, st.Changed, st.Throttled, 100*st.Keyspace)
	fmt.Fprintf(w, "   flat-initial at run 0, hot-outliers from run %d on; settled (max/mean <= %.2f, no host >100%%) from run %d, and again from run %d\n",
		balancerHotRun, balancerSettled, balancerSettleRuns, balancerHotRun+balancerHotSettleRuns)
	return nil
}

const (
	balancerRuns   = 30 // runs of the section
	balancerHotRun = 12 // the run from which 6 hosts run hot
	// balancerSettled and balancerSettleRuns are the package doc's figure
	// for a flat-initial tier: settled (max/mean <= 1.06) by run 2, with no
	// host above 100%.
	balancerSettled    = 1.06
	balancerSettleRuns = 2
	// balancerHotSettleRuns: the hot hosts' weights are corrected within 3
	// runs (the doc's classifier is right from 3 runs after a change).
	balancerHotSettleRuns = 3
)

// balancerRun is what one run of the section read and did: the tier's state,
// the CPU max/mean and hosts above 100% it read, the hosts it moved and the
// share of the keyspace that moved.
type balancerRun struct {
	state   balancer.State
	maxMean float64
	over    int
	changed int
	moved   float64
}

// balancerClaims is what the section's lines state: the flat weights at
// start are classified flat-initial, and the 6 hosts whose extra CPU their
// weight does not explain hot-outliers in every run from balancerHotRun; the
// guarded steps settle the tier by run balancerSettleRuns, and again
// balancerHotSettleRuns runs after the hot hosts; and the totals of the last line (from
// Stats) are the sums of the runs'.
func balancerClaims(runs []balancerRun, st balancer.Stats) []claim {
	if len(runs) != balancerRuns {
		return []claim{{false, fmt.Sprintf("%d runs, not %d", balancerRuns, len(runs))}}
	}
	settled := func(from, to int) claim {
		for i := from; i < to; i++ {
			if r := runs[i]; r.maxMean > balancerSettled || r.over > 0 {
				return claim{false, fmt.Sprintf("settled (max/mean <= %.2f, no host >100%%) from run %d, not max/mean %.3f with %d hosts >100%% at run %d",
					balancerSettled, from, r.maxMean, r.over, i)}
			}
		}
		return claim{true, ""}
	}
	hot := claim{true, ""}
	for i := balancerHotRun; i < balancerRuns && hot.holds; i++ {
		hot = claim{runs[i].state == balancer.HotOutliers,
			fmt.Sprintf("hot-outliers from run %d on, not %s at run %d", balancerHotRun, runs[i].state, i)}
	}
	changed, moved := 0, 0.0
	for _, r := range runs {
		changed += r.changed
		moved += r.moved
	}
	return []claim{
		{runs[0].state == balancer.FlatInitial, fmt.Sprintf("flat weights at start: flat-initial at run 0, not %s", runs[0].state)},
		hot,
		settled(balancerSettleRuns, balancerHotRun),
		settled(balancerHotRun+balancerHotSettleRuns, balancerRuns),
		{st.Runs == balancerRuns && st.Changed == uint64(changed) && math.Abs(st.Keyspace-moved) < 1e-9,
			fmt.Sprintf("%d runs, %d weight changes, %.2f%% of keyspace moved in total, not %d, %d, %.2f%%",
				balancerRuns, changed, 100*moved, st.Runs, st.Changed, 100*st.Keyspace)},
	}
}
