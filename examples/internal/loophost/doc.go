// Package loophost holds the default Host names that the examples' HTTP
// listeners on loopback answer to: the gateway's /control (control_hosts),
// the controlplane command's API (allowed_hosts) and the cluster's plane.
//
// A listener on loopback answers the loopback names and its own IP only, so
// that a web page whose domain an attacker resolves to 127.0.0.1 cannot
// drive it from an operator's browser (DNS rebinding); an IP literal is no
// such risk, the page comes with its domain as Host.
//
// [Allowed] is the rule the gateway and the controlplane command apply to
// their configured list; the cluster, which has no such setting, takes
// [Names] of its plane's IP. It is internal: one rule shared by three
// examples, not API of the kit.
//
// # When not to use it
//
// Not as access control: a Host check stops a browser led by a rebound
// domain, not a client that sends whatever Host it likes (any local process,
// or anyone who reaches a listener beyond loopback). For a listener beyond
// loopback Allowed returns nil, any Host, unless a list is configured.
//
// # Concurrency
//
// Both functions are pure: no state, no goroutine. Names returns a new slice
// on each call; Allowed returns the caller's hosts slice itself when it is
// given, so a caller that changes it changes the result.
//
// # Stats
//
// None.
package loophost
