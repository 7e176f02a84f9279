// Package cache compares tierkit's cache with otter v2, theine, ristretto and
// golang-lru: hit ratios on the shared ARC traces and Zipf, throughput on two
// cores, and the stale-set harness. Results are in README.md.
package cache
