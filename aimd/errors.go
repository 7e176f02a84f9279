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

// ErrInvalidConfig is wrapped by the errors of [New] and [Limiter.SetConfig]
// for a Config out of range (a negative or non-finite figure, Min above Max,
// Initial outside [Min, Max], MemoryLow above MemoryHigh). With several fields
// wrong, the error is an errors.Join of one such error per field. The caller
// should fix the configuration; SetConfig then changes nothing, the previous
// one stays in force. [MaxOf.Sample] wraps it too, for a component without a
// Signal (New refuses that MaxOf; its slice may be changed afterwards).
//
// A signal this package provides that cannot read on this platform or
// runtime ([ProcessCPU] without getrusage, [SchedLatency] without its
// metric) returns an error wrapping errors.ErrUnsupported: use another one.
var ErrInvalidConfig = errors.New("invalid config")

// ErrClosed is returned after [Limiter.Close]. Do not retry on this Limiter.
var ErrClosed = errors.New("aimd: limiter closed")

// ErrCgroup is wrapped by the errors of [CgroupCPU.Read] and
// [CgroupCPU.Sample]: the cgroup CPU accounting is missing, cannot be read,
// or holds what the kernel never writes (a quota or period of 0, a usage
// that is not a non-negative number). The error names the file and wraps
// the cause (such as fs.ErrPermission). Fix the files or their permissions,
// or use [ProcessCPU]; a [Limiter] holds its limit at each step that gets it.
var ErrCgroup = errors.New("cgroup CPU accounting unusable")
