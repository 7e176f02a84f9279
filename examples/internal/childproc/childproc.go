// Package childproc starts the helper processes of the examples' tests
// (redis-server shards, gateways, a re-run test binary) so that they do not
// outlive the test binary that started them.
//
// A test stops what it started in a t.Cleanup, but a test binary that dies
// runs no cleanup: go test's -timeout panics and exits (scripts/test.sh
// relies on it to end a hang with a goroutine dump), a panic in one test ends
// every other test too, and os.Exit skips them. A redis-server started with
// cmd.Start alone then runs on, reparented, holding its port and memory until
// someone kills it by hand.
package childproc
