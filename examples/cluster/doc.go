// Command cluster runs a whole gateway tier on one machine and scripts what
// the tier is for: 2 regions x 3 reference gateway processes (examples/gateway)
// in front of redis-server shards on loopback, the control plane
// (examples/controlplane) in process with its dashboard, and a load generator
// of many tenants whose thin clients (examples/client) follow the plane's
// routes with controlplane.Follow.
//
//	cd examples && go run ./cluster                      # run, print throughput, serve the dashboard
//	cd examples && go run ./cluster -scenario hot-gateway
//	cd examples && go run ./cluster -scenario all        # every scenario, one report each
//
// The dashboard is at http://127.0.0.1:7070/ (-http). README.md has the
// figures of a run.
//
// # Scenarios
//
// Each scenario changes the running tier the way an operator or an incident
// would (chaos and admission knobs through each gateway's /control HTTP API,
// the rollout through the plane, a request rate, a SIGKILL), measures what
// the tier does, and checks bounds that fail when the behaviour is wrong; the
// tests in this package run each on a fresh cluster:
//
//   - hot-gateway: one gateway's commands cost 4 times the CPU (chaos.burn_us):
//     the plane sees it, its region's balancer lowers its weight, and the
//     region's CPU evens out.
//   - region-overload: a region's demand rises to about 1.1 of its capacity's
//     p90 CPU: failover spills part of it to the backup region before the
//     region's home signal crosses 0.9, and brings it back afterwards with one
//     spill episode and no reversal on the way down.
//   - noisy-tenant: at reduced capacity (admission limit 2, 25 ms added per
//     backend call) one tenant floods from both regions: it is shed on every
//     gateway offered well over its capacity and in every region, no other
//     tenant is shed or fails.
//   - rollout: the rollout flag ramps 0 -> 50 -> 100% of keys onto the
//     gateways, then the kill switch sends everything direct as soon as each
//     client has the routes.
//   - killed-gateway: a gateway process is killed mid-load: its requests are
//     retried once on the next host of their key and the host is ejected, no
//     request fails, the plane marks it draining.
//
// # How it is built
//
// The gateway is built once (go build) into a temporary directory; each
// process gets its own JSON configuration (tenants with passwords, the redis
// shards, free loopback ports, an admission floor of 2; aimd's target is set
// to 1 because its default signal reads the whole shared machine), runs with
// GOMAXPROCS=1 in its own process group and, on Linux, dies with its parent,
// so a failed test or an interrupted command leaves no process behind
// ([Cluster.Close] stops them all). Every gateway burns a baseline of CPU per
// command (chaos.burn_us, [Spec.Burn]) and is given the plane as a 0.1-core
// host ([Spec.Cores]): a few dozen requests/s then read as a utilization
// well above the noise of an idle process, on a machine shared with other
// work. [Start] lowers the burn on a host where a gateway's own CPU per
// command is larger than the spec assumes (the race detector, a slow host),
// so that the base load reads about the same utilization everywhere. The load sends paced GET and SET requests per tenant and region
// ([Load]) and counts, per tenant and region, requests that succeeded,
// failed, were shed (an OVERLOADED answer) or retried, and per host the
// attempts sent there.
//
// # When not to use it
//
// It is a demonstration and an end-to-end test, not a benchmark: the
// gateways share two cores with the load generator, redis and the plane, and
// their capacity is nominal. For throughput figures see examples/gateway's
// README and bench/; for the policies at fleet scale, examples/sim and
// examples/overload.
//
// # Concurrency
//
// A [Cluster] is driven by one goroutine (a scenario); its load, plane and
// HTTP server run their own goroutines until [Cluster.Close], which waits
// for them.
//
// # Stats
//
// [Load.Snapshot] reads the load's counters as a value [Snapshot]: [Counts]
// (OK, Failed, Shed, Retried, and requests by path, Gateway or Direct) per
// tenant and home region, attempts per host, and a failed stream's last
// error. [Snapshot.Sub] of an earlier snapshot gives a window's counts (a
// host whose pool a client closed counts 0 there), and [Snapshot.Tenant],
// [Snapshot.Region], [Snapshot.All] and [Snapshot.HostTotals] sum them. The
// scenarios judge their outcome on such windows; a gateway's own state is
// read from its /control/state over HTTP.
package main
