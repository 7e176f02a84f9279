// Package hashringbench compares tierkit's hashring with the Go consistent-hashing
// libraries people reach for: lookup speed, balance with equal and with 26-126 "core"
// weights, keys moved on join, leave and reweight against the optimum, and build
// time. The tests print the distribution table; the benchmarks measure speed. See
// README.md for the commands and the results.
package hashringbench
