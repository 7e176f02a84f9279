// Package citest holds what the examples module's tests share about CI.
//
// [SkipOrFailInCI] is for a test that needs a tool a developer may not have
// installed (redis-cli and redis-benchmark for examples/gateway's harness
// tests, Debian's /usr/sbin/nutcracker, Chromium for examples/controlplane's
// dashboard): it skips the test with the reason, except under CI=true, where
// scripts/test.sh has run scripts/setup.sh nutcracker, which installs them,
// and a skip would hide a test CI must run. It is internal: a convention of
// the examples module's tests, not API.
//
// # When not to use it
//
// Not for a need that scripts/setup.sh does not install: under CI=true the
// test would then always fail; skip with t.Skip instead. Not to decide what
// a test does outside CI beyond skipping: it reads only the CI variable, and
// only its value "true" counts.
//
// # Concurrency
//
// It keeps no state and starts no goroutine. SkipOrFailInCI ends the test
// with t.Fatal or t.Skip, so, as those, call it from the goroutine running
// the test.
//
// # Stats
//
// None.
package citest
