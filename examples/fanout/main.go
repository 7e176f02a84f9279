package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"text/tabwriter"
)

func main() {
	f, target, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) { // asked for the usage, which is printed
		return
	}
	if err != nil {
		os.Exit(2)
	}
	if err := report(os.Stdout, f, target); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

func parseFlags(args []string, errOut io.Writer) (Fleet, float64, error) {
	fs := flag.NewFlagSet("fanout", flag.ContinueOnError)
	fs.SetOutput(errOut)
	var f Fleet
	fs.IntVar(&f.Regions, "regions", 20, "regions, each with its own gateway tier")
	fs.IntVar(&f.DBHosts, "db-hosts", 500_000, "database hosts")
	fs.IntVar(&f.Proxies, "proxies", 30_000, "gateway hosts, spread evenly over the regions")
	fs.IntVar(&f.Clients, "clients", 1_000_000, "client hosts")
	fs.IntVar(&f.ShardsPerCli, "shards-per-client", 50_000, "shard replicas one client touches")
	fs.Float64Var(&f.ShardDensity, "density", 250, "shard replicas per database host that one region's tier routes to")
	fs.IntVar(&f.ClientPool, "client-pool", 2, "sticky connections per client to its regional tier")
	fs.IntVar(&f.BackendPool, "backend-pool", 1, "connections per (proxy, database host) pair")
	fs.BoolVar(&f.AnyProxyRoutes, "any-proxy", false, "no shard affinity: any proxy of a region sends to any host")
	target := fs.Float64("target", 19, "reduction to solve the shard density for (the article: ~19x)")
	if err := fs.Parse(args); err != nil {
		return Fleet{}, 0, err
	}
	// Every number is a flag: an argument that is not one is refused, since
	// flag parsing stops there and would ignore it and every flag after it.
	if fs.NArg() > 0 {
		err := fmt.Errorf("unexpected argument %q: every setting is a flag (-h)", fs.Arg(0))
		fmt.Fprintln(errOut, "fanout:", err)
		return Fleet{}, 0, err
	}
	// A reduction is a positive number: no density gives a NaN, infinite,
	// zero or negative one, and the solver printed "out of reach" for it,
	// as if the fleet were the reason.
	if t := *target; !(t > 0) || math.IsInf(t, 1) {
		err := fmt.Errorf("-target %v: want a positive, finite reduction (the article: 19)", t)
		fmt.Fprintln(errOut, "fanout:", err)
		return Fleet{}, 0, err
	}
	return f, *target, nil
}

// report prints the side-by-side tables, the density that reproduces the target, and
// how each side grows with the client population.
func report(w io.Writer, f Fleet, target float64) error {
	if err := f.validate(); err != nil {
		return err
	}
	d, g := direct(f), gateway(f)
	fmt.Fprintf(w, "fleet: %d regions, %d database hosts, %d proxies (%.0f per region), %d clients, %d shards per client\n",
		f.Regions, f.DBHosts, f.Proxies, g.ProxiesRegion, f.Clients, f.ShardsPerCli)
	fmt.Fprintf(w, "assumed: shard density %.4g per host per region tier, client pool %d, backend pool %d, shard affinity %v\n\n",
		f.ShardDensity, f.ClientPool, f.BackendPool, !f.AnyProxyRoutes)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "connections\tdirect access\tvia gateway\t")
	row := func(name string, a, b float64) { fmt.Fprintf(tw, "%s\t%s\t%s\t\n", name, num(a), num(b)) }
	row("per-client fan-out", d.ClientFanOut, g.ClientFanOut)
	row("per-database-host fan-in", d.DBFanIn, g.DBFanIn)
	fmt.Fprintf(tw, "per-proxy fan-in (clients)\t-\t%s\t\n", num(g.ProxyFanIn))
	fmt.Fprintf(tw, "per-proxy fan-out (database)\t-\t%s\t\n", num(g.ProxyFanOut))
	row("total client-side", d.Total, g.ClientSide)
	fmt.Fprintf(tw, "total proxy-to-database\t-\t%s\t\n", num(g.BackendSide))
	row("total persistent", d.Total, g.Total)
	tw.Flush()
	fmt.Fprintf(w, "\nreduction in total persistent connections: %.1fx (a database host is hit by a client with p = %.4f)\n",
		d.Total/g.Total, d.HitProb)

	alt := f
	alt.AnyProxyRoutes = !f.AnyProxyRoutes
	fmt.Fprintf(w, "with shard affinity %v instead: db fan-in %s, reduction %.1fx\n",
		!alt.AnyProxyRoutes, num(gateway(alt).DBFanIn), reduction(alt))

	printSolve(w, f, target)
	printGrowth(w, f)
	return nil
}

func printSolve(w io.Writer, f Fleet, target float64) {
	fmt.Fprintf(w, "\nwhich shard density reproduces %gx?\n", target)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "density\tdb fan-in (gateway)\treduction\t")
	for _, s := range []float64{25, 50, 100, 200, 250, 300, 500, 1000} {
		f.ShardDensity = s
		fmt.Fprintf(tw, "%g\t%s\t%.1fx\t\n", s, num(gateway(f).DBFanIn), reduction(f))
	}
	tw.Flush()
	if s, ok := solveDensity(f, target, densityMin, densityMax); ok {
		f.ShardDensity = s
		fmt.Fprintf(w, "=> %gx at a density of %s shard replicas per host per regional tier (db fan-in %s)\n",
			target, densityText(s), num(gateway(f).DBFanIn))
	} else {
		fmt.Fprintf(w, "=> %gx is out of reach for this fleet at any density\n", target)
	}
}

func printGrowth(w io.Writer, f Fleet) {
	fmt.Fprintln(w, "\nas the client population grows (everything else fixed):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "clients\tdirect db fan-in\tgateway db fan-in\tper-proxy client fan-in\treduction\t")
	base := f.Clients
	for _, k := range []int{1, 2, 4, 10} {
		f.Clients = base * k
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1fx\t\n", num(float64(f.Clients)), num(direct(f).DBFanIn),
			num(gateway(f).DBFanIn), num(gateway(f).ProxyFanIn), reduction(f))
	}
	tw.Flush()
	pool, times := "", ""
	if f.BackendPool != 1 {
		pool, times = " x backend pool", fmt.Sprintf(" x %d", f.BackendPool)
	}
	if f.AnyProxyRoutes { // every proxy reaches every host: fan-in is the whole fleet of proxies
		fmt.Fprintf(w, "direct fan-in grows with the clients; gateway fan-in stays the proxy count%s (no shard affinity).\n", pool)
		return
	}
	// Not regions x density: a region's density replicas on a host are owned
	// by the expected number of distinct proxies of the region, fewer.
	owners := distinct(gateway(f).ProxiesRegion, f.ShardDensity)
	fmt.Fprintf(w, "direct fan-in grows with the clients; gateway fan-in stays regions x the expected number of a region's proxies\n"+
		"owning a host's replicas%s (%d x %.5g%s = %s at density %.4g; operator-owned).\n",
		pool, f.Regions, owners, times, num(gateway(f).DBFanIn), f.ShardDensity)
}

// densityText formats a solved shard density: whole above 100, where a
// rounding is within half a percent, and to three significant digits below, so
// that a solution under one replica per host does not print as 0 or 1.
func densityText(s float64) string {
	if s >= 100 {
		return fmt.Sprintf("%.0f", s)
	}
	return fmt.Sprintf("%.3g", s)
}

// num formats a count with thousands separators, or in scientific notation when huge.
func num(x float64) string {
	if x >= 1e12 {
		return fmt.Sprintf("%.3g", x)
	}
	s := fmt.Sprintf("%.0f", x)
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
