// Package aimd is adaptive admission control: an AIMD (additive increase,
// multiplicative decrease) loop holds a load signal, such as the CPU utilization
// of the process or of its container, at a target by regulating a concurrency
// limit and, optionally, a token bucket; a memory guard rejects new work before
// the Go heap reaches its limit. It is the CPU concurrency controller that sits in
// front of discriminant load shedding in the ZGateway design.
//
// # Use
//
// [New] returns a [Limiter] configured by a [Config]. [Limiter.Acquire] (blocking,
// context first) and [Limiter.TryAcquire] admit one unit of work and return
// done(ok bool), gobreaker-style; errors are [ErrLimitExceeded], [ErrMemory] and
// [ErrClosed]: shed or back off. New and SetConfig refuse a Config out of range
// with an error wrapping [ErrInvalidConfig]. [Limiter.Limit] is the current concurrency limit,
// readable with one atomic load, so a *Limiter is the capacity of a shed.Shedder
// (which declares the one-method interface; neither package imports the other).
// Reading Limit does not step the loop: a Limiter that only serves as a
// Shedder's capacity keeps its initial limit whatever the load. Either admit
// the work through the Limiter as well (TryAcquire once the Shedder admitted
// it, as examples/gateway does), or set [Config.Manual] and call
// [Limiter.Tick] every Period (examples/overload); in both cases call the
// Shedder's Kick after a step that raised the limit, or its queued requests
// wait for the next release.
//
// # Control
//
// Each step samples the [Signal] and calls the pure [Update]: at or below the
// target the limit grows by Increase plus a term proportional to the headroom
// ([Params.Gain]), above it the limit is multiplied by max(Decrease,
// target/load) (with the default Backoff, see below); the result is clamped to [Min, Max]. The token bucket rate is
// updated the same way within [MinRate, MaxRate], and the bucket never holds
// more than one control period of tokens (one token when the rate earns fewer
// in a period), so a burst after an idle spell releases at most one period's
// worth of work. Signals: [ProcessCPU]
// (getrusage over GOMAXPROCS, or over a budget of [ProcessCPU.Cores]), [CgroupCPU] (cgroup v2 cpu.max and cpu.stat
// usage_usec, v1 cpu.cfs_quota_us and cpuacct.usage: correct inside a container
// with a CPU quota, and the highest usage over quota of every cgroup with a
// quota on the way up, as the kernel throttles at whichever binds; a period across a change of the quota, or of GOMAXPROCS
// for ProcessCPU, reads NaN, as its capacity is unknown), [Latency] (mean latency of observed work),
// [SchedLatency] (a quantile of the Go scheduler's latency: it sees a process
// starved of CPU, which a CPU signal reads as idle), [MaxOf] (several signals,
// each against its own target; the worst one drives the loop), or any
// [SignalFunc]. The memory guard compares the Go memory in use (via
// runtime/metrics: mapped memory less the released and free heap, so that it
// resets once live data is collected, GOGC=off included; and less the heap
// allocated since the last collection when the Go memory limit, as the
// collector runs near it, binds at or below the guard's: see
// [Config.HeapBytes]) with the Go memory limit in force at each step (GOMEMLIMIT,
// or what debug.SetMemoryLimit set since) or [Config.MemoryLimit], tripping at
// MemoryHigh and resetting below MemoryLow (hysteresis). A tripped guard
// resets only after a collection has run: with GOGC=off that is when
// allocation brings memory near the Go memory limit again (there is no
// periodic forced collection then), so under traffic too light to allocate
// much, refused requests included, it can stay tripped for long after the
// live data is gone; a process that must recover sooner can call
// runtime.GC itself, or run with a GOGC.
//
// Measured on explicit time against a lagged CPU-bound plant (control_test.go):
// after capacity doubles, the limit is within 10% of its new equilibrium after
// 0.3 s of control time and overshoots it by 7-10%; after an outside overload
// that drove the limit to Min ends, full admission returns within 0.7-1.0 s.
// The constant Increase (default 1) must be small next to the equilibrium limit
// for the steady sawtooth to stay within 10% (about 45 and up with the default).
//
// A noisy signal wants a proportional loop: [Config.Backoff] below 1 corrects
// only that fraction of an excess (the default corrects all of it: the factor
// Target/load), escalated by [EscalatedBackoff] over a run of periods above the
// target (base for two periods, then doubled, up to the full correction), so a
// saturated CPU reading, whose excess is unknown, still cuts fast. With
// Backoff 0.3, Gain 0.4 and Increase 0.1, against a plant read with 2 points
// of Gaussian noise (control_test.go, TestNoisyPlant, explicit time, 3 seeds of
// 300 s), 79.9-80.5% of the 100 ms periods read within +-3 points of a 90%
// target against 73.2-74.6% with the full correction (Increase 1, Gain 0.2,
// Decrease 0.9); the noise alone caps this at 87%. The same configuration
// settles within 10% 0.4 s after capacity doubles (2.5% overshoot) and admits
// fully 1.1-1.6 s after an outside overload ends (TestProportionalMeetsTargets).
// On a real process (examples/overload, 2 cores, 90% target, this loop on
// ProcessCPU and SchedLatency) that has the CPU to itself, 93-99% of the 100 ms
// periods read within +-3 points in its first 44 runs of 20 s (mean
// 90.0-90.3%), 80-100% in 630 of the 631 runs since (mean 89.1-90.3%; the
// other, with a core taken by the hypervisor, 55%); sharing a machine whose
// other processes take a core now and then (without -rt), 52-71% in the 18
// such runs whose rows were kept (batch A of examples/overload/rt_runs.txt,
// some with bursts of other work started on purpose).
// [ProcessCPU.Cores] measures the process's CPU against a budget of cores
// rather than GOMAXPROCS, for a process that shares its machine.
//
// Fast recovery ([Config.Recover], the pure rule [Recover]) is for loads
// disturbed by short outside events, such as other processes on the machine
// taking a core for a few hundred milliseconds: after such a cut the gradual
// climb keeps the limit below what the machine can do again for several
// periods, while work queues. With Recover, the limit held before a run of cuts
// is remembered, and a reading well below the target then brings the limit
// back to it at once (by the proportional estimate limit x target/load, never
// above the remembered value, whose next step is capped too, as its reading
// still covers the lower limit); a lasting loss of capacity reads near the
// target after the cut, and the limit stays where the loop put it. On the
// plant (recover_test.go): back within 5% one period after a 300 ms or 1 s hog
// of half the CPU, against 2 and 5 periods without, no overshoot, and no swing
// when the capacity stays lost.
//
// # When not to use it
//
// For a fixed per-client quota use golang.org/x/time/rate; for per-tenant
// fairness under overload put a shed.Shedder behind the Limiter: aimd decides
// how much work the process takes, not whose.
//
// # Concurrency
//
// A Limiter is safe for concurrent use and starts no goroutine. The control step
// runs lazily, on the first admission after each period (the caller samples the
// signal outside the lock; concurrent callers do not wait for it), or only from
// [Limiter.Tick] when [Config.Manual] is set, which also serves simulations and
// tests on explicit time. The lazy schedule counts time by the monotonic
// reading of time.Now, so a step of the wall clock (NTP, a VM resumed) neither
// stalls the loop nor hurries it; explicit times without a monotonic reading
// are counted by their wall reading. [Limiter.Config] returns the Config in
// force, for a change of one field; [Limiter.SetConfig] swaps every tunable
// atomically, or none.
//
// What blocks: [Limiter.TryAcquire], [Limiter.TryAcquireAt], done,
// [Limiter.Stats] and [Limiter.Close] wait only for the Limiter's mutex, which
// no call holds while a signal is sampled; [Limiter.Limit] reads one atomic.
// [Limiter.SetConfig] too, but a Config that switches to the default signal (a
// nil Signal) probes the cgroup files under that mutex. [Limiter.Acquire]
// waits until it is admitted, the Limiter is closed or its context ends. The
// one admission that takes a lazy step, and every [Limiter.Tick], waits for
// [Signal.Sample] and [Config.HeapBytes] before it goes on; [New] calls
// HeapBytes once too, so the memory guard applies before the first step. Tick calls, and a
// Tick with a lazy step, may sample at the same time, so a Signal should be
// safe for concurrent use (this package's are); a step whose time is before
// that of one that completed while it sampled drops its readings, which are
// older, rather than store them over the newer ones.
//
// What allocates: between steps, TryAcquire plus done allocates nothing,
// admitted or rejected. The admission that takes a step allocates whatever
// the sample does: the default HeapBytes reads runtime/metrics and
// allocates, and [CgroupCPU] (the default signal in a container with a CPU
// quota) reads its files on each sample. A blocked Acquire allocates a timer
// each time it waits, and a release or step while Acquire calls wait
// allocates the channel that the next waiters sleep on.
//
// # Stats
//
// [Limiter.Stats] returns admissions, outcomes, rejections by cause, control
// steps (increases, decreases, signal errors), memory trips, and the current
// work in flight, limit, rate, load, heap, whether the memory guard is
// tripped and the memory limit it watches. Each admission call counts once, as admitted or
// rejected: a blocked Acquire that waits and gets in is no rejection. A call
// that fails with [ErrClosed] counts in neither.
//
// # Cost
//
// Measured on 2 cores (AMD EPYC, Go 1.26), as CPU time per op, all
// implementations in the same run (bench/aimd/README.md):
//
//	cd bench && go test -run '^$' -bench . -count 10 -benchtime 300ms ./aimd/
//
// In the sixty-first session's run (raw output in bench/aimd/peers_host61.txt,
// the process's CPU per op), TryAcquire plus done costs 62 ns with a
// concurrency limit and 75 ns with the token bucket too, and allocates
// nothing; golang.org/x/time/rate's Allow costs 87 ns and
// go-concurrency-limits' AIMD and Gradient2 limiters 208 and 209 ns (3
// allocations). A rejection costs 59 ns (go-concurrency-limits: 38 ns, it
// reads no clock; [Limiter.TryAcquireAt] takes a time the caller already
// read). The pure Update costs 7 ns (go-concurrency-limits' OnSample: 14 ns).
// Since then TryAcquire and Acquire read the clock as the epoch plus
// time.Since (one read of the monotonic clock, where time.Now reads the wall
// clock too): in alternating runs on that host, admission 59.8 -> 45.5 ns,
// rejection 58.6 -> 43.6 ns (go-concurrency-limits' 35.2 ns)
// (bench/aimd/clock_since_abba61.txt).
// The forty-third session's run, on the thread's clock, which left out the
// GC's work on go-concurrency-limits' garbage (bench/aimd/peers_host43.txt):
// 88, 96, 91, 251 and 246 ns; rejection 71 ns against 56; Update 8 ns
// against 30.
package aimd
