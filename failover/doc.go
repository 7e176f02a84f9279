// Package failover computes a gateway tier's cross-region routing table: when a
// region's tier runs out of room, part of its demand is served by healthy regions,
// nearby first, in declared proportions, behind per-mechanism percentage knobs.
//
// A [Router] is stepped on a fixed cadence with one [Load] per region (client demand,
// capacity, per-host CPU). [Router.Step] returns a [Table]: the [Route] values (share
// of a region's demand served elsewhere, and by which [Mechanism]) and a
// [RegionDecision] per region with its [Signal], [Phase], wanted and placed spill and a
// one-line reason. Clients apply the table with [Table.Pick] (deterministic per client
// id, 0 allocations).
//
// # Mechanisms
//
//   - Ring ([MechRing]): Region.Ring declares which regions back this one up and in
//     what proportion; spill goes there first, split by the declared weights.
//   - Mega-region ([MechMega]): regions sharing Region.Mega are one locality; what the
//     ring did not place spreads over them, in proportion to their headroom.
//   - Global ([MechGlobal]): what is left spreads over every other region.
//
// Each mechanism is enabled per region by its percentage knob ([Knobs]): p% of what the
// mechanism could place is routed, the rest stays home (the blast-radius limit of a
// rollout). Zero knobs disable failover for the region. Receivers are filled only up to
// Config.ReceiverMax (at their own projected load and imbalance), and a spilling region
// never receives, so spill cannot cascade back.
//
// # The signal, and why it fires early
//
// A regional CPU average smooths over exactly the hot hosts that matter: in a region
// at 70% mean CPU the hottest tenth can already be at 80%, and the mean only moves once
// the whole region is hot. The router reads instead:
//
//   - the upper percentile of host CPU (Config.Percentile, p90) and its ratio to the
//     mean, the region's internal imbalance k, taken as 1 when it is below 1 (one
//     very hot host among cool ones can put the p90 under the mean);
//   - Home = Demand/Capacity * k: the p90 CPU the region would run at serving only its
//     own demand. It is independent of the routes in force, so spilling does not hide
//     the pressure that caused it (no on/off oscillation) and received traffic does not
//     look like local pressure;
//   - its trend (EWMA of the per-run change), projected Config.LeadRuns runs ahead:
//     Projected = Home + LeadRuns * max(trend, 0). The change is per run, so runs
//     must come at a fixed cadence (a pause between two Steps reads as one run). A
//     run without a reading of the region (its report missing, or Capacity 0)
//     restarts the trend: the next report is a new baseline with no trend, so a
//     rate from before the gap is never projected onto a reading after it. A
//     report without host CPUs reads Home at an imbalance of 1: next to one with
//     them it is a new baseline too (the trend is kept, as after a Percentile
//     change), so a lost host-CPU scrape is not read as a fall and a rise. One
//     that lost only some hosts is (it reads another imbalance): a report
//     with host CPUs lists every host Capacity counts ([Load.HostCPU]);
//   - the share of hosts above Config.HotCPU, which fires on its own (for regions not
//     receiving spill).
//
// A region starts spilling when Projected reaches Config.Enter (0.80) — with the
// defaults, a region whose demand rises 1 point per run fires when its mean CPU is
// 0.72 (TestFiresBeforeTheCrossing), about 5 runs before its p90 reaches 0.80 and 18
// runs before its mean reaches 0.90. It sends away the share that brings Projected down
// to Config.Target, and at least Config.DownStep when it fires (its hot hosts may fire
// it with little or no demand excess).
//
// Hysteresis keeps routes from flapping: the share rises at once (when the want
// is more than MinChange above it) but falls only when
// the want is zero or more than 2*MinChange below it, no sooner than MinHold runs
// after the last rise, by at most DownStep per run; a region returns to [Local] only
// when Projected is below Config.Exit (0.68, under Target and Enter) after MinHold runs
// and its hot share no longer fires (while it does, the share does not wind down,
// and a region still spilling with a share wound down below DownStep sheds DownStep
// again, as a Local region with those hosts would fire; so it does when its
// Projected reaches Enter again),
// neither now nor at home demand: each host's CPU plus the share the region sends
// away, spread evenly (out x Demand/Capacity). The relief its own spill brings does
// not end the spill, so hosts hot with their demand at home keep at least DownStep
// away instead of firing again one run after the region recovers.
//
// # When not to use it
//
// It decides how much of each region's demand goes where, not which host serves it
// (package balancer and a consistent-hash ring do that) and not whether a client uses
// the gateway at all (package rollout). Health checking of individual hosts is not its
// job: a region's Capacity should already exclude dead hosts.
//
// # Concurrency
//
// A Router is safe for concurrent use (a mutex serializes runs, so Stats, Config
// and SetConfig called during a Step wait for it); a Table is an immutable value
// once returned. Nothing starts a goroutine or reads a clock: now is a
// parameter, so simulations are deterministic and tests do not sleep. A Step
// allocates its Table and per-run scratch in proportion to the regions and
// routes; Stats allocates nothing.
//
// # Stats
//
// [Router.Stats] counts runs, rejected inputs, spill starts and ends, routes turned on
// or off (all monotonic from [New], never reset), and gives the regions spilling
// after the last run (a gauge).
//
// # Measured
//
// `go run ./examples/sim` (6 regions in 2 mega-regions, diurnal demand, 6 seeded
// bursts, a2 losing 30% of its capacity for 4 hours, one run per simulated minute,
// 24 hours, seed 1): no region above 90% mean CPU (peak 0.873, right after the
// capacity step); spilling started at least 5 runs before each crossing of 90% by a
// region's home demand; 0.07% of demand cross-region when no region's home demand
// is above 75% of its capacity; receivers peak at 0.72; 0.62 spill-share reversals
// per hour; the 60% knob realized at 59.8% through Table.Pick, ring proportions
// 70.0/30.0 over uncapped runs. Baselines in the same run: health-only priorities
// (Envoy) 115 region-minutes above 90% (peak 0.94), a fixed 80%-mean threshold 23
// (6.1 reversals/hour), a 30-minute epoch table 4 (peak 0.94; its epochs start half
// an epoch off the hour).
//
// Cost (`go test -run '^$' -bench . -count 8 ./failover/`), benchstat medians of
// 8; Table.Pick allocates nothing. On the forty-second session's host (a 2-core
// AMD EPYC VM, otherwise idle; raw output in bench/rootpkgs_host42.txt): Step
// 8.9 us over 6 regions of 60 hosts and 99.9 us over 48, Table.Pick 22 ns (the
// naive mean-threshold step 0.79 us and 6.9 us, with none of the guardrails). On
// the forty-first session's host (a noisy 2-core Intel Xeon VM;
// bench/rootpkgs_host41.txt): Step 18.3 us and 159 us, Table.Pick 36 ns.
package failover
