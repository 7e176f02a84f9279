// Package loophosttest holds what the examples' tests of the loopback Host
// defaults (package loophost) share: a probe for a second loopback address
// and a table of GETs with a Host header and the status each must get.
//
// [SkipUnlessLocal] and [Check] serve the tests of examples/gateway's
// control_hosts, the controlplane command's allowed_hosts and the cluster's
// plane. It is internal, and a package apart from loophost, which the
// commands import: this one imports testing and testify.
//
// # When not to use it
//
// Not outside tests. Not against a server that needs more than a plain GET:
// Check sends no body, header or credentials but Host, and follows
// redirects (http.DefaultClient), so the status it checks is the last
// response's. SkipUnlessLocal only tells whether ip can be bound here; it
// reserves nothing, and the port it probed is closed again.
//
// # Concurrency
//
// It keeps no state and starts no goroutine of its own. Both functions end
// the test on failure (t.Skipf, require's FailNow): call them from the
// goroutine running the test. Check sends its requests one after another
// through http.DefaultClient, whose transport keeps their connections idle
// for reuse (with net/http's goroutines) until the server closes them.
//
// # Stats
//
// None: a failed case is reported through the test (assert), with the first
// 200 bytes of the body.
package loophosttest
