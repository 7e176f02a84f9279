// Command fanout is a calculator for the connection arithmetic of a gateway tier: the
// balls-into-bins model of fan-out and fan-in under direct access and behind a
// regional proxy tier, with the article's fleet as the default and any fleet as flags.
//
//	go run ./examples/fanout
//	go run ./examples/fanout -clients 4000000 -density 100
//
// Every number of the fleet is a flag (-regions, -db-hosts, -proxies, -clients,
// -shards-per-client, -density, -client-pool, -backend-pool; -any-proxy drops shard
// affinity; -target is the reduction to solve the density for, 19 by default). An
// argument that is not a flag, a fleet the model cannot hold (a count or pool below 1,
// fewer proxies than regions, a density that is not a positive number, more than
// math.MaxInt/10 clients, since the growth table multiplies them by 10) or a target that
// is not a positive finite number is refused with exit status 2.
//
// See examples/fanout/README.md for the model, every assumption, and which
// assumptions reproduce the article's ~19x reduction.
//
// # When not to use it
//
// It computes expectations from a model; it measures nothing. It opens no connection
// and says nothing about a real fleet's sharding, pool sizes or skew beyond what its
// flags assume (uniform placement of shard replicas, proxies spread evenly over the
// regions). For measured figures see examples/gateway's README and bench/.
//
// # Concurrency
//
// None: it runs on main's goroutine, prints its report and exits. It handles no
// signals and reads no input.
//
// # Stats
//
// It counts nothing; it prints to standard output, for the fleet given: the fleet and
// its assumptions; a table of per-client fan-out, per-database-host fan-in, per-proxy
// fan-in and fan-out and the totals, direct and via the gateway; the reduction in total
// persistent connections, and with shard affinity switched; the reduction at eight
// shard densities and the density that reaches -target (or that none does); and how
// both sides grow at 1, 2, 4 and 10 times the clients. testdata/fanout-default.txt is
// that output for the defaults, which the README quotes and a test compares byte for
// byte.
package main
