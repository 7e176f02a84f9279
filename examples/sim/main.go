package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	o, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		os.Exit(2)
	}
	if err := run(os.Stdout, o.seed, o.runs, o.plots); err != nil {
		fmt.Fprintln(os.Stderr, "sim:", err)
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct {
	seed  uint64
	runs  int
	plots string
}

// parseFlags parses args, printing usage and errors to errOut. Every setting
// is a flag: an argument that is not one is refused rather than ignored
// ("sim plots -seed 2" would otherwise print seed 1 and write no plots, since
// flag parsing stops at the first non-flag argument).
func parseFlags(args []string, errOut io.Writer) (options, error) {
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	fs.SetOutput(errOut)
	var o options
	fs.Uint64Var(&o.seed, "seed", 1, "random seed (same seed, same output)")
	fs.IntVar(&o.runs, "runs", 300, fmt.Sprintf("balancer runs per scenario (%d to %d)", minBalRuns(), maxBalRuns))
	fs.StringVar(&o.plots, "plots", "", "directory to write the plots to, SVG and PNG (empty: none)")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		err := fmt.Errorf("unexpected argument %q: settings are flags (-seed n, -runs n, -plots dir)", fs.Arg(0))
		fmt.Fprintln(errOut, "sim:", err)
		return options{}, err
	}
	if err := checkRuns(o.runs); err != nil {
		fmt.Fprintln(errOut, "sim:", err)
		return options{}, err
	}
	return o, nil
}

// maxBalRuns bounds -runs: a run costs about 3 ms (24 scenario-controller pairs of
// 200 hosts) and keeps two float64 series per pair, so 20,000 runs take about a
// minute and a few MB, while an unbounded count (-runs 1e9, a typo) ran for days
// and grew its series until memory ran out.
const maxBalRuns = 20_000

// checkRuns rejects a balancer run count the simulation cannot measure (too few
// for the last shock and a settle window) or would take hours over.
func checkRuns(runs int) error {
	if n := minBalRuns(); runs < n {
		return fmt.Errorf("-runs %d: need at least %d (the last shock starts at run %d, then %d runs to settle)",
			runs, n, n-settleRuns, settleRuns)
	}
	if runs > maxBalRuns {
		return fmt.Errorf("-runs %d: at most %d (about a minute; each run costs about 3 ms)", runs, maxBalRuns)
	}
	return nil
}

func defaultBal(runs int) balParams {
	return balParams{Hosts: 200, Runs: runs, Target: 0.55, Noise: 0.005, Drift: 0.002, Regions: 4}
}

// results is everything one simulation measured.
type results struct {
	bal  []balResult
	fail []failResult
	knob knobResult
}

// simulateAll runs both simulations: the balancer with runs runs per scenario, the
// failover over minutes simulated minutes (1440: one day).
func simulateAll(seed uint64, runs, minutes int) results {
	var res results
	res.bal = runBalancerAll(defaultBal(runs), seed)
	fp := defaultFail(minutes)
	for _, r := range failRouters() {
		res.fail = append(res.fail, runFailover(fp, seed, r))
	}
	res.knob = runKnob(fp, seed, 60)
	return res
}

func run(w io.Writer, seed uint64, runs int, plots string) error {
	if err := checkRuns(runs); err != nil {
		return err
	}
	res := simulateAll(seed, runs, 24*60)
	fmt.Fprintf(w, "tierkit sim, seed %d: balancer 200 hosts x %d runs per scenario; failover 6 regions x 1440 minutes\n\n", seed, runs)
	printAll(w, res)
	if plots != "" {
		if err := writePlots(plots, res.bal, res.fail); err != nil {
			return err
		}
		fmt.Fprintf(w, "plots written to %s\n", plots)
	}
	return nil
}

// printAll prints the measurement tables and the target tables.
func printAll(w io.Writer, res results) {
	printBalancer(w, res.bal)
	fmt.Fprintln(w)
	printFailover(w, res.fail, res.knob)
	ctls, rows := balancerTargets(res.bal)
	printTargets(w, "balancer targets (tierkit vs baselines, same tier, same seed)", ctls, rows)
	ctls, rows = failoverTargets(res.fail, res.knob)
	printTargets(w, "failover targets (tierkit vs baselines, same day, same seed)", ctls, rows)
}

func printBalancer(w io.Writer, rs []balResult) {
	fmt.Fprintf(w, "%-14s %-16s %8s %8s %7s %9s %9s %8s %8s %7s %8s %5s\n",
		"scenario", "controller", "max/mean", "p95", "settle", "moved%", "movedMax%", "jitter%", ">100%", "min/med", "class%", "flat")
	for _, r := range rs {
		fmt.Fprintf(w, "%-14s %-16s %8.3f %8.3f %7d %9.4f %9.4f %8.3f %8d %7.3f %8.1f %5d\n",
			r.scenario, r.ctl, r.MaxMean, r.P95, r.Settle, 100*r.Moved, 100*r.MovedMax, 100*r.Jitter, r.Over100, r.MinMed, 100*r.Accuracy, r.FlatSettled)
	}
}
