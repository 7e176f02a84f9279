// Package batcherbench compares tierkit's batcher with the Go request batchers
// people reach for (vikstrous/dataloadgen, graph-gophers/dataloader v7 and
// google.golang.org/api/support/bundler) on one workload: 256 goroutines calling
// the batcher in a loop, batches of 128, a 1 ms linger, a trivial backend that
// answers each request with request+1, every key unique (no de-duplication and no
// cache hit anywhere). One op is one item. See README.md for the command and the
// results.
package batcherbench
