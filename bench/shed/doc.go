// Package shedbench compares the per-tenant admission decision of tierkit's
// shed.Shedder with what people build from peers: a golang.org/x/time/rate
// limiter per tenant (Allow), and platinummonkey/go-concurrency-limits v0.8.0
// percentage partitions per tenant (LookupPartitionStrategy) under its AIMD and
// Gradient2 limits. One op is one decision for one of 1,350 tenants (cycled) plus
// its release where the peer has one. See README.md for the command and results.
package shedbench
