// Package aimdbench compares the admission decision of tierkit's aimd.Limiter
// with golang.org/x/time/rate (Allow) and platinummonkey/go-concurrency-limits
// v0.8.0 (a DefaultLimiter over its AIMD and Gradient2 limits): one op is one
// admission decision plus its release (done / OnSuccess) where the peer has one.
// See README.md for the command and the results.
package aimdbench
