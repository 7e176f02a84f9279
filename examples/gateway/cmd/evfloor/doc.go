// Command evfloor measures what an event-loop front end could do where the
// gateway's goroutine-per-connection design trails twemproxy: pipeline 1.
// It is a floor, not a gateway: one goroutine on one locked thread runs an
// epoll loop over the client connections and one connection per Redis shard,
// as twemproxy does, and forwards GET and SET with the gateway's batching
// (each loop pass sends one MGET per shard for the GETs it read, identical
// keys once, and its SETs pipelined; a SET of a key read earlier in the
// pass sends that MGET first, so each client's commands keep their order).
// compare.sh runs it (EVFLOOR=1) beside twemproxy and the gateway on the
// SET, GET and hot-key rows, so that "would an event loop in Go beat
// twemproxy at pipeline 1?" is measured rather than guessed.
//
//	cd examples && go run ./gateway/cmd/evfloor -addr 127.0.0.1:7398 -redis 127.0.0.1:6379
//
// -addr is the listen address, an IPv4 address and port (default
// 127.0.0.1:7398); -redis the shards, comma-separated (default
// 127.0.0.1:6379), a key going to shard FNV-1a(key) mod n. A bad address, an
// empty shard or an argument that is not a flag is a usage error (exit 2).
// examples/gateway/README.md ("Against twemproxy") has its figures.
//
// # When not to use it
//
// It is a measurement, not a proxy: no admission, shedding, caching,
// metrics, TLS, authentication or limits; anything but GET and SET is
// answered +OK (PING: +PONG) without reaching a shard, and its sharding is
// not the gateway's hash ring nor twemproxy's ketama. It binds IPv4 only and
// belongs on loopback for the length of a benchmark. It needs Linux (epoll):
// elsewhere it prints so and exits 2.
//
// # Concurrency
//
// None beyond main's goroutine, locked to its thread: it dials every shard
// (blocking) before it serves, then one loop accepts, reads, sends and
// writes. While accept fails for want of a descriptor or memory, the
// listener leaves the epoll set for up to 100 ms (or until a client closes)
// so the loop does not spin. It runs until killed (it handles no signals)
// or until a shard's connection fails or closes, when it logs the error and
// exits 1.
//
// # Stats
//
// None: it counts nothing and prints nothing but a fatal error. The figures
// (ops/s, CPU per op) are what compare.sh measures from outside.
package main
