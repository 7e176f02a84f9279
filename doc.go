// Package tierkit is a kit of building blocks for a gateway tier: the stateless proxy
// layer between a large, uncontrolled client fleet and a sharded key-value store, in
// the pattern of Meta's ZGateway in front of ZippyDB.
//
// The root package holds no code; each capability is a package of its own that can be
// imported alone, wrapped around an existing KV client, or unit-tested in isolation:
//
//   - coalesce: identical in-flight calls from many callers share one execution.
//   - batcher: group requests by (tenant, shard) and flush each group as one backend
//     call, after a linger or as soon as nothing is in flight (natural batching),
//     with de-duplication, idle eviction and an in-flight cap.
//   - shed: discriminant load shedding, a bucket per (tenant, priority), cost-fair drain.
//   - aimd: adaptive admission, an AIMD loop on a CPU, latency or Go scheduler
//     latency signal regulating a token bucket and a concurrency limit, plus a
//     memory guard.
//   - hashring: weighted consistent hashing with replicas and bounded load.
//   - cache: a bounded (adaptive W-TinyLFU) read-through cache with per-key fill
//     locks, multi-key reads with one bulk load, and CDC invalidation under a
//     bounded-staleness contract.
//   - balancer, failover, rollout: pure decision cores for host weights, cross-region
//     routing and migration flags.
//   - txn and memkv: transaction bookkeeping in the gateway and an embedded ordered
//     multi-version store that validates it.
//   - control: a typed, audited control surface over every component's knobs.
//
// # How the pieces compose
//
// A request in the reference gateway (examples/gateway) passes its tenant's quota,
// then shedding (shed), which queues it per tenant and priority and admits it
// within the concurrency limit that admission control (aimd) sets (shed picks
// whose work waits or is dropped; aimd only sets how much runs), then aimd's own
// check and memory guard; it is routed to a shard (hashring), may be served from the cache
// (cache), is coalesced with identical in-flight reads (coalesce) and batched with
// other requests for the same tenant and shard (batcher) before it reaches the backend.
// Only single GETs coalesce: a multi-key command, or a pipelined run of plain
// GETs, SETs and MGETs, goes as one batch item per shard, and its keys are sent
// once per batch but do not join other commands' in-flight reads (the gateway's
// README, "Request path").
//
// Packages import no sibling except cache -> coalesce (and the tests of txn and
// cache -> memkv); wherever one needs another it declares a small interface that
// the other satisfies, so that each can be replaced or tested alone.
//
// Every component exposes Stats() as a value snapshot and, where it has tunables,
// a validated Config that SetConfig swaps at runtime (a hashring Ring is
// immutable instead: a change derives a new ring). A Config out of range is
// refused, by New as by SetConfig, with an error wrapping the package's
// ErrInvalidConfig (errors.Is), and SetConfig then keeps the previous one.
package tierkit
