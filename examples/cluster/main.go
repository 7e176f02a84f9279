package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

func main() {
	o, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		os.Exit(2)
	}
	redis.SetLogger(quietRedis{})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o.scenario, o.spec, o.keep, o.quiet); err != nil {
		fmt.Fprintln(os.Stderr, errLine(err))
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct {
	scenario    string
	spec        Spec
	keep, quiet bool
}

// parseFlags parses args, printing usage and errors to errOut. An argument
// that is not a flag is refused rather than ignored: "cluster noisy-tenant"
// would otherwise start the cluster and serve it until interrupted, running
// no scenario (flag parsing stops at the first non-flag argument).
func parseFlags(args []string, errOut io.Writer) (options, error) {
	fs := flag.NewFlagSet("cluster", flag.ContinueOnError)
	fs.SetOutput(errOut)
	var o options
	fs.StringVar(&o.scenario, "scenario", "", "scenarios to run: "+strings.Join(names(), ", ")+" (comma-separated), or all (default: none, run until interrupted)")
	fs.StringVar(&o.spec.HTTP, "http", "127.0.0.1:7070", "dashboard and plane API address (loopback only)")
	fs.IntVar(&o.spec.Tenants, "tenants", 0, fmt.Sprintf("tenants, 1 to %d (default 12)", maxTenants))
	fs.Float64Var(&o.spec.Rate, "rate", 0, fmt.Sprintf("requests/s per tenant per region, %d to %d (default 10)", minRate, maxRate))
	fs.DurationVar(&o.spec.Cadence, "cadence", 0, fmt.Sprintf("control plane cadence, %v to %v (default 400ms)", minCadence, maxCadence))
	fs.BoolVar(&o.keep, "keep", false, "keep the cluster running after the scenarios, until interrupted")
	fs.BoolVar(&o.quiet, "q", false, "no progress lines")
	fs.StringVar(&o.spec.GatewayBin, "gateway", "", "a built gateway binary (default: build examples/gateway)")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		err := fmt.Errorf("unexpected argument %q: settings are flags (-scenario name, ...; -h lists them)", fs.Arg(0))
		fmt.Fprintln(errOut, "cluster:", err)
		return options{}, err
	}
	// A value out of range is a usage error too (exit 2), refused before
	// anything is built or started; Start and run check the same. A zero
	// given (-tenants 0) is out of range as well: the Spec's zero takes the
	// default, which would run 12 tenants for "-tenants 0".
	given := givenSpec(fs, o.spec)
	err := given.validate()
	var todo []string
	if err == nil {
		todo, err = scenarioList(o.scenario)
	}
	if err == nil {
		err = checkScenarios(todo, given)
	}
	if err == nil {
		err = checkLoopbackLiteral(o.spec.HTTP)
	}
	if err != nil {
		fmt.Fprintln(errOut, errLine(err))
		return options{}, err
	}
	return o, nil
}

// givenSpec is spec with its defaults, except that a flag given keeps its
// value, a zero included, for validate to judge.
func givenSpec(fs *flag.FlagSet, spec Spec) Spec {
	out := spec.withDefaults()
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "tenants":
			out.Tenants = spec.Tenants
		case "rate":
			out.Rate = spec.Rate
		case "cadence":
			out.Cadence = spec.Cadence
		}
	})
	return out
}

// scenarioList returns the scenarios -scenario names, in order: none for "",
// every one for "all", else the comma-separated names, each a known one
// given once, except that killed-gateway runs last. It leaves its victim
// dead: a scenario after it would fail on the dead gateway (hot-gateway heats
// it, noisy-tenant sets every gateway's knobs). A name given twice is
// refused: a scenario leaves the knobs, rates and rollout as it found them,
// not the balancer's weights (after hot-gateway its host keeps a lowered
// share, and a second hot-gateway fails on it), and a second kill would find
// a victim that served nothing before it.
func scenarioList(name string) ([]string, error) {
	switch name {
	case "":
		return nil, nil
	case "all":
		return names(), nil
	}
	var todo []string
	kill := false
	seen := map[string]bool{}
	for _, n := range strings.Split(name, ",") {
		if !slices.Contains(names(), n) {
			return nil, fmt.Errorf("unknown scenario %q (want one of %s, a comma-separated list, or all)", n, strings.Join(names(), ", "))
		}
		if seen[n] {
			return nil, fmt.Errorf("scenario %q named twice (run the command again to repeat one)", n)
		}
		seen[n] = true
		if n == killedGatewayName {
			kill = true
			continue
		}
		todo = append(todo, n)
	}
	if kill {
		todo = append(todo, killedGatewayName)
	}
	return todo, nil
}

// checkScenarios refuses scenarios that spec (with its defaults) cannot
// run, before anything is built or started: noisy-tenant floods with one
// tenant and judges the tier on the others, so it needs 2.
func checkScenarios(todo []string, spec Spec) error {
	if slices.Contains(todo, noisyTenantName) && spec.Tenants < 2 {
		return fmt.Errorf("cluster: %s needs at least 2 tenants (got %d)", noisyTenantName, spec.Tenants)
	}
	return nil
}

// noisyTenantName is the scenario that needs a second tenant.
const noisyTenantName = "noisy-tenant"

// killedGatewayName is the scenario that leaves a gateway dead.
const killedGatewayName = "killed-gateway"

// errLine is err as the command prints it: prefixed "cluster: " once, since
// errors from Start and the cluster's methods already carry the prefix.
func errLine(err error) string {
	if msg := err.Error(); strings.HasPrefix(msg, "cluster: ") {
		return msg
	}
	return "cluster: " + err.Error()
}

func names() []string {
	var out []string
	for _, s := range scenarios {
		out = append(out, s.name)
	}
	return out
}

func run(ctx context.Context, name string, spec Spec, keep, quiet bool) error {
	todo, err := scenarioList(name)
	if err == nil {
		err = checkScenarios(todo, spec.withDefaults())
	}
	if err != nil {
		return err
	}
	if !quiet {
		spec.Logf = func(format string, args ...any) { fmt.Printf(format+"\n", args...) }
	}
	c, err := Start(ctx, spec)
	if err != nil {
		return err
	}
	defer c.Close()
	fmt.Println(upLine(c))
	failed := 0
	for _, n := range todo {
		r, err := Run(ctx, c, n)
		if err != nil {
			if r != nil && !r.OK() { // a gateway that died, say
				fmt.Print(r)
			}
			return fmt.Errorf("scenario %s: %w", n, err)
		}
		fmt.Print(r)
		if !r.OK() {
			failed++
		}
	}
	if len(todo) == 0 || keep {
		fmt.Println("serving until interrupted (Ctrl-C)")
		out := io.Writer(os.Stdout)
		if quiet {
			out = io.Discard
		}
		summarize(ctx, c, out)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d scenarios failed", failed, len(todo))
	}
	return nil
}

// upLine is the line that says the cluster is up. The rate is each
// tenant's per region, as given (-rate takes fractions: not rounded).
func upLine(c *Cluster) string {
	return fmt.Sprintf("cluster up: %d regions x %d gateways, %d redis shards, %d tenants at %s req/s per region; dashboard %s/",
		len(c.Spec.Regions), c.Spec.Gateways, len(c.Shards), len(c.Tenants), strconv.FormatFloat(c.Spec.Rate, 'f', -1, 64), c.PlaneURL)
}

// summarize writes a line of throughput per region and host to out every 2 s
// until ctx ends.
func summarize(ctx context.Context, c *Cluster, out io.Writer) {
	prev := c.Load.Snapshot()
	for sleepCtx(ctx, 2*time.Second) {
		now := c.Load.Snapshot()
		w := now.Sub(prev)
		prev = now
		// The window as measured: it also spans the writing of the
		// previous line, which a paused terminal or a slow pipe holds up.
		secs := w.Seconds()
		a := w.All()
		var b strings.Builder
		fmt.Fprintf(&b, "%s  %.0f req/s (ok %d, shed %d, failed %d, retried %d) |", time.Now().Format("15:04:05"),
			float64(a.Total())/secs, a.OK, a.Shed, a.Failed, a.Retried)
		hosts := w.HostTotals()
		st := c.Plane.State()
		for _, g := range c.Gateways {
			h, _ := hostByID(st, g.ID)
			fmt.Fprintf(&b, " %s %.0f/s share %.2f cpu %.2f", g.ID, float64(hosts[g.RESP])/secs, h.Share, h.CPU)
		}
		for _, r := range st.Regions {
			fmt.Fprintf(&b, " | %s %s out %.2f", r.Name, r.Phase, r.Out)
		}
		fmt.Fprintln(out, b.String())
	}
}

// quietRedis drops go-redis's internal log lines (a refused dial to a killed
// gateway is expected here, and counted by the load).
type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...any) {}
