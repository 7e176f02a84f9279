package aimd

import "errors"

// ErrLimitExceeded is returned when the concurrency limit is reached or the token
// bucket is empty. The tier is at the load it is regulated to: shed the request
// or retry after a backoff, never in a tight loop.
var ErrLimitExceeded = errors.New("aimd: limit exceeded")

// ErrMemory is returned while the memory guard is tripped: the Go heap is above
// the high-water mark of its limit. Shed the request; the guard resets once the
// heap falls below the low-water mark.
var ErrMemory = errors.New("aimd: memory limit")

// ErrClosed is returned after [Limiter.Close]. Do not retry on this Limiter.
var ErrClosed = errors.New("aimd: limiter closed")
