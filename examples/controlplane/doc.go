// Package controlplane is the control plane of a gateway tier: it polls every
// gateway's state, runs package balancer per region and package failover across
// regions on a fixed cadence, and publishes host weights (a weighted hashring per
// region), region routes (a failover table), rollout flags, draining hosts and the
// direct-mode shards, which thin clients (examples/client) pick up with
// [FetchRoutes] or [Follow]. It serves a live dashboard and a JSON API
// ([Plane.Handler]). README.md says how to run it; cmd/controlplane is the binary.
//
// # The model
//
// [Plane.Tick] is one run: poll, decide, publish.
//
//  1. Poll. Each gateway's GET /control/ (package control's handler) carries its
//     knobs and, in its state, a "host" entry (examples/gateway/planestate.go,
//     decoded as a [Sample]): cumulative process CPU seconds and uptime, in-flight
//     and served commands, shed counts, per-tenant counters. The knobs changed at
//     runtime show on the dashboard. Polls run concurrently (Config.PollConcurrency), each bounded by
//     Config.PollTimeout. A [Poller] replaces HTTP in tests and simulations.
//  2. Observe. Utilization = d(CPU seconds) / d(uptime) / Gateway.Cores, both
//     deltas on the gateway's own clock, so poll jitter does not enter and a
//     process with GOMAXPROCS=1 and Cores=1 (or a fractional Cores) reads
//     meaningfully on a shared machine. It is averaged over ticks
//     (Config.Smoothing), and when a region's weights, drains or members change
//     each gateway's average is rebased by its new share over its old one, its
//     share of the gateways not draining (its CPU follows that share), so CPU
//     measured under the old weights is not corrected a second time, nor is a
//     gateway back from a drain compared with peers whose averages still hold
//     the load it left them. A reading over an interval in which the gateway
//     drained (by hand or down) is not averaged in: clients skipped it, so it
//     reads idle; its average starts over at the next one, as after a restart.
//     (Failover routes scale a whole region, which the balancer's per-region
//     normalization ignores.) An uptime that goes back means the
//     process restarted (with a counter gone back, its counters, which
//     started from zero since the last poll, count whole toward the
//     tenants' totals and rates): its measurement starts over, as it does after a
//     utilization above a million (a garbled sample). Until the next
//     measurement the balancer gets no signal from it, and the failover signal
//     keeps its last measurement and its cores, as for a missed poll: it still
//     serves its share of the ring.
//  3. Balance. One [balancer.Balancer] per region (weights compare only within a
//     ring). A gateway gives it its utilization when it is up, not draining and
//     above Config.MinCPU; otherwise CPU 0, which the balancer reads as "no
//     signal": the weight is kept. A down gateway's last weight is the best guess
//     for when it returns, and a draining gateway's CPU says nothing about its
//     weight. Gateways start at capacity-scaled weights: at [New], their cores over
//     their region's median cores; added later ([Plane.AddGateway]), their cores
//     times the median weight per core of the region's gateways the balancer has
//     run, times the balancer's NewHostFactor (with none, as at New), as the
//     balancer's next run places them; both within the balancer's MinWeight and
//     MaxWeight.
//  4. Fail over. The region's own demand, in cores, is estimated from the CPU its
//     gateways served in the last interval and the routes then in force (served =
//     own x (1 - out) + received), then smoothed; unlike the observed CPU it does
//     not drop when the region spills, so spilling does not switch itself off. A
//     gateway drained since the last tick, by hand or by failed polls, counts in
//     it (clients that had not followed the drain yet sent it their work; with
//     its last measurement if the poll failed), not in the capacity; one
//     that was draining when the interval began does not count in it until it
//     is measured over an interval of its own (clients skipped it: its peers
//     served its share, whatever its last measurement says); a region
//     with a gateway that serves clients but has no measurement yet (it joined
//     since the last tick) keeps its last estimate for that tick. It
//     is the [failover.Load] Demand, the region's live cores its Capacity, and its
//     gateways' utilizations the HostCPU. A region's Backups form its failover
//     ring (weights 1, 1/2, 1/4... in order of preference), enabled at 100% unless
//     Region.Knobs says otherwise. The router waits until every region with
//     gateways has a measurement (at most DrainAfter+2 ticks), so a first
//     measurement does not read as a steep rise.
//  5. Publish. Each region's ring is derived from its previous ring
//     ([hashring.Ring.Update]: a weight change moves the fewest keys), with
//     Config.Slots slots (4096 by default: 8 KiB per region, about 11 KB in
//     base64 in the routes JSON). Failover shares are rounded to Config.ShareStep and republished only when a route
//     starts or ends or a share moves by more than a step. A new version is published only when
//     something a client routes on changed (a ring's members or weights, the
//     routes, the rollout flags, the draining hosts): unchanged decisions keep the
//     version, and following clients do not churn. Versions only increase; the
//     document also carries the plane's epoch, so a client following a restarted
//     plane still sees the change.
//
// A gateway whose poll fails at the transport is marked down at once (its error
// is kept in the state; the failover signal keeps counting its last measurement
// and its cores, since clients still route to it) and, after Config.DrainAfter
// consecutive failures, listed in the routes' Draining hosts so clients skip it;
// it stays in its ring (membership changes move keys; draining does not), and
// returns to service at its first successful poll. A gateway that answers with a
// state the plane cannot use (a status other than 200, say because one of its
// components' stats does not encode as JSON; [ErrBadState]) is shown as
// [HealthBadState] with the error: it is reachable, so it is not drained; it gives
// the balancer no signal and the failover signal its last measurement.
// [Plane.Drain] drains by hand, [Plane.RemoveGateway] takes a gateway out of its
// ring. Membership changes, drains and rollout changes publish at once.
//
// # The wire
//
// GET /api/routes serves one JSON document per version: {"epoch", "version",
// "gateways": {region: base64 of hashring MarshalBinary}, "failover": the
// [failover.Table] JSON, "rollout": [rollout.Config], "direct", "draining"}, with an
// ETag; a request with If-None-Match of the current ETag is answered 304, so an
// idle [Follow] costs one small request per period. [DecodeRoutes] checks every
// part (ring checksums and invariants, route shares, rollout rules) before a
// client applies it, and refuses a document missing a part the plane always
// sends (epoch, version, gateways, failover, rollout; none may be null): a
// follower keeps its last good routes rather than read a partial document as
// "everything direct".
//
// # When not to use it
//
//   - Fleets beyond one process's reach: a Tick polls every gateway and runs every
//     region; at thousands of gateways per cadence, shard the plane by region (the
//     failover step then needs every region's load, gathered another way).
//   - Signals other than CPU: the balancer weighs by utilization, so a tier bound
//     by memory, connections or backend latency needs its own signal (replace the
//     Poller, or run balancer and failover directly).
//   - Consensus: the plane is one process. Several planes over one tier would
//     publish rings with different histories, and clients would disagree on
//     placement; run one. If an old and a new process answer at once (a
//     restart behind a load balancer), [Follow] keeps to the later-started
//     one: it orders documents by (epoch, version), the epoch being the
//     process's start on its wall clock, so keep the plane hosts' clocks in step. While it is down, clients keep the last routes they
//     got. It keeps nothing on disk: a restarted plane publishes its
//     configuration afresh (capacity-scaled weights, the configured rollout
//     and kill switch, no drains, the configured gateways), and
//     following clients apply that at once (a new epoch). A rollout or kill
//     switch, or a gateway added or removed, that must outlive a restart
//     belongs in the configuration too; a drain must be made again.
//   - Authentication: the handler has none. Serve it on loopback, with
//     Config.AllowedHosts set to the loopback names so that a web page cannot
//     reach it by DNS rebinding, or behind a middleware that authenticates.
//
// # Concurrency
//
// A Plane is safe for concurrent use. Ticks are serialized by their own mutex;
// the polls run without the state lock, so [Plane.State], [Plane.Routes] and the
// HTTP handler never wait for a slow gateway, and membership changes made during
// the polls apply (a gateway added then is polled from the next tick; a sample
// of one removed then is dropped). Routes are published through an atomic
// pointer to an immutable publication (rings, table and flags are immutable; the
// routes document is encoded once per version). The plane starts goroutines
// only inside [Plane.Tick] (the polls, joined before it returns) and
// [Plane.Run], which returns when its context ends; [Follow] likewise.
//
// # Stats
//
// [Plane.Stats] counts ticks, polls and poll errors, publications (versions),
// balancer, failover and ring errors (inputs they rejected; the previous
// decision stays), gateways added and removed, the failover router's spill
// starts, spill ends and route changes (every run's, published or not), and
// gauges the gateways and the draining ones. [Plane.State] adds, per gateway, health, weight, ring share,
// CPU, the balancer's load and reason; per region, the balancer's class and
// evidence, the failover phase, signal, shares and reason, demand and capacity;
// per tenant, requests and shed over the tier; and a bounded history
// (Config.History ticks) for the plots.
//
// # Measured
//
// The dashboard test (TestDashboardInChromium) drives Debian's headless Chromium
// with chromedp: the page loads, its tick counter and CPU column update as the
// plane ticks, one CPU line is drawn per gateway, and a region pushed toward
// overload shows its new route ("eu → us ... (ring)") and phase. Test figures on
// explicit time with simulated gateways: a gateway costing 1.6x CPU per request
// ends inside the balancer's 10% deadband and the version stops moving
// (TestHotGatewayLosesWeight); a region whose demand rises 5% of its capacity per
// tick spills before its hottest gateway reaches 90% CPU and stays under 90%
// while spilling, then winds down without a reversal once it cools
// (TestRegionSpillsAndReturns). Costs are in README.md.
package controlplane
