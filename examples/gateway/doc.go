// Command gateway is tierkit's reference gateway: a Redis-protocol proxy that
// composes the kit's packages on the request path (tenant ACLs, aimd admission
// feeding shed, hashring routing, coalescing, batching per tenant x shard,
// per-tenant quota) in front of an embedded memkv store or Redis shards.
//
//	go run ./examples/gateway                 # RESP on 127.0.0.1:6380, /control on 127.0.0.1:6381
//	redis-cli -p 6380 set k v
//	curl -s 127.0.0.1:6381/control/ | head
//
// See README.md for the configuration file, what is implemented and what is
// not, and every measurement; HISTORY.md for how each was made.
//
// # When not to use it
//
// It is a reference: it shows the packages composed, and is tested end to
// end with real clients, but it is not a drop-in Redis proxy. It serves the
// command set the README lists (no Redis Cluster protocol, no pub/sub, no
// scripting for clients), reloads no configuration file (its knobs change
// through /control, its tenants and shards only at a restart), and logs no
// per-request lines. At pipeline 1 on cores it shares with busy clients it
// is slower than twemproxy (README, "Against twemproxy"), and at pipeline 16
// against a twemproxy given 512-byte buffers on a fast host its p99 is longer
// and its CPU per op higher on SET and GET (on a slow one it met every
// target but one p99 in three runs); a proxy that must win there wants fewer
// goroutine hand-offs than this one makes. Users who
// want one piece (shedding, batching, a cache tier) import that package.
//
// # Concurrency
//
// Each client connection has a goroutine of its own that reads a chunk of
// its pipeline, runs it and writes the replies in order: the chunk's
// commands are grouped into runs that execute concurrently on a pool of
// reusable workers when their keys do not conflict, and a connection sees
// its commands in order. Data commands wait for admission (quota, then
// shed's queue, whose capacity is the aimd limiter's limit), then join the
// batch of their tenant and shard (natural batching: a batch is sent when
// its group has nothing in flight, or when full, and a flush runs on a
// goroutine of its own or on the caller's), so one call carries many
// clients' commands, over a small bounded pool of backend connections per
// shard. The HTTP server (/control, /metrics, /debug/pprof)
// and, with the caching tier on Redis shards, each shard's change feed run
// on goroutines of their own. Shutdown stops accepting, lets each connection
// finish what it has read, flushes the batches and waits for every goroutine
// it started (bounded at 10 s).
//
// # Stats
//
// INFO answers the gateway's counters (connections, commands, backend calls,
// batch fill, coalescing, cache hits) and its caller's tenant's line; /metrics has the
// same counters and more for Prometheus: requests and latency histograms per
// tenant and command, backend calls and ops, shed's counts per tenant and
// priority and reason, throttled requests, quota left, the admission limit,
// the caching tier's hits and misses; GET /control/ has every component's
// live state. The README's "/control" and INFO sections list them all.
package main
