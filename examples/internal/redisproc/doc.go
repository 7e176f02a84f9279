// Package redisproc starts the throwaway redis-server processes of the
// examples' tests on loopback ports, with no persistence, so that they do not
// outlive the test binary (package childproc) and so that a test never takes
// another test's server for its own.
//
// A free port is free when it is picked but not reserved: another process may
// bind it, or take it as the local port of a connection, before the server
// does. The server then exits at start while the other one answers on the
// port; Start tells the two apart by INFO's process_id, and StartFree tries
// another port.
//
// [StartFree] serves the tests of examples/gateway and examples/client;
// [Start] serves examples/gateway's tests that start a server on a port they
// chose (a shard restarted on its port, say). It is internal: test
// plumbing of the examples module, not API of the kit.
//
// # When not to use it
//
// Not for data that must survive: the server saves nothing (no RDB, no AOF)
// and runs in a temporary directory removed when it exits. Not without a
// redis-server binary (bin; scripts/setup.sh installs one). Not as a
// production launcher: Start waits up to 5 s, polling every 10 ms, and
// outside Linux a server outlives a test binary that dies without its
// cleanups.
//
// # Concurrency
//
// Start and StartFree are safe for concurrent use: each server has its own
// port, directory and client. Start starts one goroutine per server, which
// waits for the process, removes its directory and closes [Proc.Exited]; it
// ends when the process exits. Start returns once the server answers as
// itself, or with an error and nothing left running. [Proc.Stop] kills the process
// and waits for that goroutine; it is idempotent and may be called from
// several goroutines, so a test calls it in a t.Cleanup and leaves no
// goroutine behind.
//
// # Stats
//
// None.
package redisproc
