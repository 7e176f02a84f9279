package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
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
	fmt.Fprintln(w, "   200 hosts, 26-126 cores, hidden efficiency 0.85-1.15, target 55% CPU, flat weights at start:")
	for run := range 30 {
		if run == 12 {
			for _, i := range rng.Perm(n)[:6] {
				extra[i] = 0.25
			}
			fmt.Fprintln(w, "   -- 6 hosts (3%) get +25 CPU points their weight does not explain --")
		}
		mm, over := cpu()
		res, err := b.Step(time.Unix(int64(run)*60, 0), hosts)
		if err != nil {
			return err
		}
		if run < 4 || (run >= 12 && run < 16) || run == 29 {
			fmt.Fprintf(w, "   run %2d: max/mean %.3f, %3d hosts >100%%, state %-13s changed %3d, keyspace moved %.3f%%\n",
				run, mm, over, res.State, res.Changed, 100*res.KeyspaceMoved)
		}
		for i, d := range res.Hosts {
			hosts[i].Weight, hosts[i].New = d.New, false
		}
	}
	st := b.Stats()
	fmt.Fprintf(w, "   %d runs: %d weight changes, %d throttled host-runs, %.2f%% of keyspace moved in total\n",
		st.Runs, st.Changed, st.Throttled, 100*st.Keyspace)
	return nil
}
