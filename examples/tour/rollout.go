package main

import (
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/tierkit/tierkit/rollout"
)

func init() {
	sections = append(sections, section{order: 90, name: "rollout",
		title: "client-side routing flags: prefix scope, monotonic ramp, region filter, kill switch", run: tourRollout})
}

func tourRollout(w io.Writer) error {
	cfg := rollout.Config{}
	for s := range 20 {
		svc := fmt.Sprint("service-", s)
		cfg.Rules = append(cfg.Rules, rollout.Rule{Service: svc, Percent: 0})
		for p := 1; p < 5; p++ {
			cfg.Rules = append(cfg.Rules, rollout.Rule{Service: svc, Prefix: fmt.Sprintf("shard%d:", p), Percent: 0,
				Regions: []string{"eu-1", "us-2"}})
		}
	}
	flags, err := rollout.New(cfg)
	if err != nil {
		return err
	}
	const keys = 100_000
	qs := make([]rollout.Query, keys)
	for i := range qs {
		qs[i] = rollout.Query{Service: "service-3", Key: fmt.Sprintf("shard%d:user:%d", i%5, i), Region: []string{"eu-1", "us-2", "ap-3"}[i%3]}
	}
	routed := make([]bool, keys)
	fmt.Fprintf(w, "   %d rules (20 services x 5 prefixes); ramping service-3 over %d keys:\n", len(cfg.Rules), keys)
	for _, pct := range []float64{1, 5, 25, 50, 100} {
		for i := range cfg.Rules {
			cfg.Rules[i].Percent = pct
		}
		if err := flags.SetConfig(cfg); err != nil {
			return err
		}
		n, left, eligible := rampStep(flags, qs, routed)
		if err := verify(rolloutRampClaims(pct, left, n, eligible)...); err != nil {
			return err
		}
		fmt.Fprintf(w, "   %5.1f%% -> %6d of %d eligible keys routed (%.2f%%), %d keys left the gateway\n",
			pct, n, eligible, 100*float64(n)/float64(eligible), left)
	}
	cfg.Kill = true
	if err := flags.SetConfig(cfg); err != nil {
		return err
	}
	n := 0
	for _, q := range qs {
		if flags.Use(q) {
			n++
		}
	}
	if err := verify(claim{n == 0, fmt.Sprintf("kill switch on routes no key, not %d", n)}); err != nil {
		return err
	}
	fmt.Fprintf(w, "   kill switch on -> %d keys routed\n", n)
	cfg.Kill = false
	if err := flags.SetConfig(cfg); err != nil {
		return err
	}
	decideTimed(w, flags, qs)
	return nil
}

// rampStep decides every query at the percentage in force: n routed of
// eligible (not refused by region), left of those routed at the step before
// (routed, updated).
func rampStep(flags *rollout.Flags, qs []rollout.Query, routed []bool) (n, left, eligible int) {
	for i, q := range qs {
		d := flags.Decide(q)
		if d.Reason != rollout.ReasonRegion {
			eligible++
		}
		if routed[i] && !d.Use {
			left++
		}
		routed[i] = d.Use
		if d.Use {
			n++
		}
	}
	return n, left, eligible
}

// decideTimed prints the time and allocations of 2M decisions over qs.
func decideTimed(w io.Writer, flags *rollout.Flags, qs []rollout.Query) {
	keys := len(qs)
	const decisions = 2_000_000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	used := 0
	for i := range decisions {
		if flags.Decide(qs[i%keys]).Use {
			used++
		}
	}
	el := time.Since(start)
	runtime.ReadMemStats(&after)
	fmt.Fprintf(w, "   %d decisions over %d distinct queries in %v: %.0f ns each, %d allocations\n"+
		"   (the <= 50 ns target is the benchmark's, on a cache-resident query set; -race slows this)\n",
		decisions, keys, el.Round(time.Millisecond), float64(el.Nanoseconds())/decisions, after.Mallocs-before.Mallocs)
}

// rolloutRampClaims is what a ramp step's line and the title's "monotonic
// ramp" state: raising the percentage takes no routed key off the gateway,
// and at 100% every eligible key is routed.
func rolloutRampClaims(pct float64, left, routed, eligible int) []claim {
	return []claim{
		{left == 0, fmt.Sprintf("a ramp to %.1f%% takes no routed key off the gateway, not %d", pct, left)},
		{pct < 100 || routed == eligible, fmt.Sprintf("at 100%% all %d eligible keys routed, not %d", eligible, routed)},
	}
}
