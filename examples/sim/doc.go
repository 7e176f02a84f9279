// Command sim is a seeded, deterministic simulator of a gateway tier that runs the
// real balancer and failover packages against baselines and prints a table of the
// issue's targets; with -plots it writes its plots, each as SVG and PNG.
//
//	go run ./examples/sim                 # full size, table only
//	go run ./examples/sim -plots out/     # and plots
//
// Three flags: -seed (default 1; the same seed prints the same output), -runs, the
// balancer runs per scenario (default 300, from 30, the last shock's onset plus its
// settle window, to 20,000, about a minute), and -plots, a directory it creates if
// need be. An argument that is not a flag or a -runs out of range is a usage error
// (exit 2); a plot it cannot write ends it with exit 1. examples/sim/README.md has
// the models, every figure of seed 1, and the plots.
//
// The balancer half runs 200 hosts in 4 regions through six scenarios (steady-drift,
// task-churn, flat-initial, bimodal, hot-outliers, regional-skew) under tierkit's
// balancer and three baselines (static capacity, qps/util WRR, proportional); the
// failover half runs 6 regions over 1,440 simulated minutes under tierkit's failover
// and three baselines (health-only as Envoy's, a fixed 80% threshold, a 30-minute
// epoch table), and measures the mega-region knob through Table.Pick.
//
// # When not to use it
//
// It is a simulation, not a benchmark or a load test: hosts, demand, noise and drift
// are a model, time is the run or minute counter, and nothing is sent over a network.
// Its figures say how the policies compare on that model, not what a real tier's CPU
// or latency would be; for the packages under real load see examples/overload (real
// mode), examples/cluster and examples/gateway.
//
// # Concurrency
//
// None: main's goroutine runs every scenario one after the other on seeded random
// sources, prints, writes the plots if asked, and exits. It handles no signals.
//
// # Stats
//
// Standard output has a header (seed, runs), a balancer table (per scenario and
// controller: max/mean CPU, p95, the run it settled at, keyspace moved per run, mean
// and worst, jitter, hosts over 100%, min/median, the classifier's accuracy, flat
// settle), a failover table (per router: peak region CPU, region-minutes over 90%
// with 15% global headroom and in all, the least lead of a spill before a 90%
// crossing and the crossings, the cross-region share when nothing is wrong, the
// receiving region's peak, reversals and route changes per hour, the ring split),
// the knob line, and two
// target tables marking each target ok or MISS per controller. -plots adds
// balancer-maxmean, balancer-moved and failover-cpu, and a line naming the directory.
// testdata/sim-seed1.txt is the output of seed 1, which a test compares byte for
// byte and the README quotes.
package main
