// Package client is tierkit's thin client: the library an application links
// to reach a sharded key-value store either through a regional gateway tier
// or directly, as a control plane decides, without code changes.
//
// Per request, [Client] decides:
//
//  1. the path: package rollout's flags (per service and key prefix, a
//     percentage, a region filter, a kill switch) say gateway or direct;
//  2. the region (gateway path): the failover.Table the control plane
//     published maps the client's home region to the region serving it
//     (Table.Pick by [Config.Unit], or the same choice by a mix of the key's
//     hash, so the keys a spill moves spread over the backup region's hosts);
//  3. the host: a weighted hashring of that region's gateway hosts (weights
//     from the control plane, published with hashring's MarshalBinary and
//     decoded with hashring.Unmarshal) gives the owner of the key and the
//     next host of its replica order; in direct mode, a ring over the backend
//     shards that places keys exactly as the reference gateway does
//     ([DirectSlots]), so both paths read and write the same shard;
//  4. the connection: a small sticky pool per host (one go-redis client per
//     address, at most [Config.PoolSize] connections; callers beyond that wait
//     for a free connection within their context, and at most go-redis's pool
//     timeout (6 s), after which they get redis.ErrPoolTimeout, not retried:
//     the pool is busy, the host did not fail; nor is redis.ErrPoolExhausted,
//     go-redis's answer when the pool is at its connection cap).
//
// A request whose host fails at the connection level (refused, reset, closed:
// a killed or draining gateway) or answers "not ready" (LOADING, TRYAGAIN,
// MASTERDOWN, SHUTDOWN, or "ERR server is shutting down", a draining
// gateway's answer to a new connection) is retried once on the next host,
// within the caller's context; the failed host is ejected for
// [Config.EjectFor], so later requests go to the next host up front instead
// of paying a failed attempt. LOADING, TRYAGAIN and MASTERDOWN eject no
// host: through a gateway they are the answer of the backend shard behind
// every gateway, relayed, and ejecting the gateway would move its keys on
// healthy shards to the other gateways.
// Hosts listed in [Routes.Draining] are skipped the same way. The retry
// host is skipped the same way too: a request whose host is the only one of
// its ring neither ejected nor draining (in a 2-host ring, any request while
// the other host is out) has no retry host ([Target].Next is empty) and
// fails with its host's error. A retry host ejected while the first attempt
// ran (by another request) is skipped at the retry: it goes to the next host
// of the key's replica order that is out neither (an MGet group: when that
// is one host for all its keys). When every host of the ring is out, the
// key's owner is tried anyway and the retry goes to the next host of its
// replica order. Requests
// rejected by the host itself (ACL, quota, shed, wrong type) are not retried:
// another host would answer the same, and retrying shed work adds load where
// there is none to spare. Only idempotent commands are offered
// ([Client.Get], [Client.Set], [Client.Del], [Client.MGet]), so a retry after
// a host failed mid-command is safe. There is one retry and no backoff: it
// goes to another host (in direct mode, a new connection to the key's shard)
// at once.
//
// NOTE: go-redis stops dialing a host once its pool has failed PoolSize
// dials (counted over the pool's life, until its probe connects) and fails
// at once with the last dial error until a background probe, once a second,
// connects. A host that is back is then refused by its own pool for up to
// about a second: a request re-admitted to it after EjectFor is retried on
// the next host and ejects it again, and in direct mode the retry dials
// nothing and fails with the same error.
//
// NOTE: go-redis bounds a command by ctx's deadline, not by its cancellation.
// Cancelling a context without a deadline ends a wait for a connection at
// once, but a command already written only when its reply arrives or the read
// times out (5 s); it is then not retried. Give requests a deadline.
//
// NOTE: a command that timed out may still be applied by its first host after
// the retry succeeded (a slow gateway still holding it in a batch): a Set or
// Del of the same key sent after the call returned can then be overwritten by
// the late one. A timed-out write has that hazard with or without the retry;
// with a deadline shorter than the read timeout, a timed-out command is
// never retried.
//
// NOTE: a failure at the caller's deadline ejects nothing (it is the
// caller's deadline, not the host's failure). So callers whose deadlines are all shorter than
// Config.DialTimeout (default 250 ms) never eject a host that drops packets: every
// request for its keys fails at its deadline until the control plane drains
// the host. Give requests a deadline above the dial timeout, or have the
// control plane watch for such hosts.
//
// # Publishing routes
//
// [Client.SetRoutes] validates a [Routes] value (ring per region, failover
// table, rollout flags, direct shards, draining hosts) and swaps it in with one
// atomic pointer store; every request loads the pointer once and routes on
// that snapshot, so a control plane can publish while requests run.
// [Client.SetConfig] swaps the client's own settings the same way.
//
// # When not to use it
//
//   - Non-idempotent commands (INCR, APPEND, transactions) need a request id
//     or a server-side de-duplication before a cross-host retry is safe; this
//     client offers none of them.
//   - Clients that cannot receive the control plane's published rings: the
//     hashring's placement depends on its history, so a client must load the
//     published ring rather than rebuild it from a host list (package
//     hashring's doc).
//   - Cross-shard atomicity: MGet groups keys per host and sends the groups one
//     after the other; it is not a snapshot.
//
// # Concurrency
//
// A Client is safe for concurrent use. Routing reads two atomic pointers and,
// once some host was ejected, each candidate's ejection deadline (an atomic,
// found through a third pointer); it takes no lock and starts no
// goroutine (go-redis pools dial on demand). [Client.Close] closes every pool.
//
// # Stats
//
// [Client.Stats] reports requests by path (gateway, direct), retries,
// failures (after the retry, or before sending: no routes, no host, closed),
// requests whose ring owner was skipped (draining or ejected), route
// publications, and attempts and open connections per host address.
//
// # Measured
//
// In examples/, `go test -race -count=1 -v ./client/` (2 shared cores, Go
// 1.26, gateway processes in front of redis-server shards on loopback):
//
//   - a gateway killed (SIGKILL) or drained (SIGTERM) mid-load under 4 workers
//     x 400 writes: 0 failures, at most one retry per worker (3 killed, 1
//     drained in the committed run, testdata/readme_tests.txt), at most one
//     attempt per worker on the lost host after its failure, every write
//     readable after, and at most 2 connections per host with PoolSize 2;
//   - rollout 0 -> 50 -> 100%: 0, 0.50 +- 0.05 and 1.0 of 1,000 keys on the
//     gateway, no key leaving the gateway as the ramp rises; the kill switch
//     sends the next 1,000 requests direct (0 on the gateway);
//   - published weights 1:1:1, 1:2:5 and 6:1:1: each host receives exactly the
//     keys the ring gives it, per-host shares within 5 points of the weights
//     over 2,400 keys (within 1.5 in the committed run, for example 0.115 /
//     0.245 / 0.640 for 1:2:5).
//
// `go test -run '^$' -bench Route -benchmem -count 6 ./client/` (medians of
// the 6 runs in bench_route.txt, busy machine): the routing decision
// ([Client.Route]) 189 ns under RunParallel with 0 allocations, about the
// same as a mutex-guarded naive baseline that skips the draining and
// ejection checks (206 ns, 15 B/op). BenchmarkSet (a Set through a gateway
// process against one straight to its redis-server shard) has no committed
// run, so no figure of it is quoted. README.md has the table.
package client
