// Command respfloor is the least a Go RESP server built like the gateway's
// front end (redcon, a goroutine per connection, Go's netpoller) can do: it
// answers every GET with one fixed 64-byte value, PING with PONG and
// anything else with OK, with no request path, no backend and no cache.
// compare.sh runs it (FLOOR=1) next to twemproxy on the GET and hot-key
// rows, so the part of the gap at pipeline 1 that the I/O model costs is
// measured rather than guessed: a row where the floor itself trails
// twemproxy cannot be won by the request path.
//
//	cd examples && go run ./gateway/cmd/respfloor -addr 127.0.0.1:7399
//
// -addr is the one flag (default 127.0.0.1:7399); an argument that is not a
// flag is a usage error (exit 2). examples/gateway/README.md ("Against
// twemproxy") has the rows it ran in.
//
// # When not to use it
//
// It is a floor to compare against, not a server: it stores nothing, every
// GET of any key gets the same value, and SET, DEL or any other command is
// answered OK without doing anything. It has no authentication, limits or
// TLS, so it belongs on loopback for the length of a benchmark. It is not a
// load tester either: redis-benchmark drives it.
//
// # Concurrency
//
// redcon serves the listener with a goroutine per connection; a connection's
// replies go out in the order of its commands. It runs until killed (it
// handles no signals), or until the listener fails, when it logs the error
// and exits 1.
//
// # Stats
//
// None: it counts nothing and prints nothing but a fatal error. The figures
// (ops/s, p99, CPU per op) are what compare.sh measures from outside.
package main
