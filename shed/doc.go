// Package shed is discriminant load shedding: every request maps to a bucket
// keyed by tenant (use case) and priority, buckets drain fairly by cost, and when
// a tenant floods, its own bucket fills and its excess is shed while every other
// bucket keeps draining. Isolation is a structural property, not luck (the
// ZGateway article calls this Discriminant Load Shedding).
//
// # Use
//
// [New] returns a [Shedder] configured by a [Config]; [Shedder.Acquire] blocks
// until the request is admitted, shed, or its context ends, and returns a release
// func to call when the work is done; [Shedder.TryAcquire] never waits. The total
// cost in flight is bounded by a [Capacity]: [Fixed] for a constant limit, or an
// adaptive limiter (an *aimd.Limiter satisfies Capacity; shed does not import it).
// shed only reads an adaptive limit; it does not drive it: an *aimd.Limiter
// steps on its own admissions or its Tick, not when shed reads its Limit, so
// admit through it as well or tick it (its package doc says how), and call
// [Shedder.Kick] after its limit grows.
//
// # Policy
//
// With free capacity and nothing queued, a request is admitted at once (the fast
// path). Otherwise it joins its (tenant, priority) bucket, bounded by
// [Config.MaxQueue] requests and [Config.MaxQueueCost] cost; beyond that it is
// shed with [ReasonBucketFull]. Buckets drain by deficit round robin by cost
// across tenants (optional per-tenant weights), strict priority within a
// tenant's share; [Scheduler] documents the exact order, and that a request
// whose turn has come but that does not fit in the free capacity holds back
// every tenant until it does, but the tenants under their share when its
// tenant is over its share.
//
// Tenants are either under or over their share. A tenant is over its share
// for [Config.OverShareWindow] (default 1 s) after one of its requests is shed,
// or once, within a window of that length, it has been served more cost per
// unit of weight than the most one tenant already over its share got in the
// previous window (the max-min fair level, exact: a weight-10 tenant served
// 9 sets 0.9, so a weight-1 tenant served 1 is over it). Tenants under
// their share are served first, in their own round robin; those over it
// share what is left. A request waiting past
// its queue deadline is shed ([ReasonQueueDeadline]) rather than served late.
// The deadline is [Config.QueueDeadline], or the shorter
// [Config.StandingDeadline] for a tenant that is over its share and has had a
// standing queue for QueueDeadline (CoDel-style, as in "Fail at Scale",
// Maurer 2015). So a flooding tenant sheds fast, while a tenant whose demand
// is below its share, even a large one that queues when the capacity dips,
// keeps the long deadline and is served ahead of the floods: it is shed only
// if the capacity stays below the demand of all the tenants under their share
// for a whole QueueDeadline. With [Config.ShedOnArrival], a request of a tenant
// over its share that joins a standing queue is shed at once
// ([ReasonQueueDeadline], counted in [Stats].ShedOnArrival too) if the cost
// queued ahead of it would not drain before its deadline at the share level:
// a flood's excess then costs a decision instead of a wait in the queue,
// though a flood of low weight and costly requests then gets less than its
// weighted share (0.5-1.3% at weight 1 in its test: see [Config.ShedOnArrival]).
//
// With [Config.FreshArrivalOrder], tenants under their share are served
// nearly in arrival order (a visit serves what the tenant had queued when it
// began) instead of one quantum per visit: after a capacity dip their requests
// then wait about as long as the dip and no longer, where in round robin a
// tenant with k requests queued waits k rounds for its last one, so the
// largest of them are shed first (TestSchedulerFreshArrivalOrder: a 40 ms dip,
// longest wait 40 ms against 71 ms). It gives up cost fairness among tenants
// under their share until the share level marks a bursting one over.
// [Stats] counts the tenants marked over their share, on a shed and on the
// level, and reports the current level.
//
// Shed errors are the shared *[ShedError] values (errors.Is(err, [ErrShed])):
// the caller should fail the request or back off, never retry in a loop. A
// Config out of range is refused by New and SetConfig with an error wrapping
// [ErrInvalidConfig]: fix the configuration (SetConfig keeps the previous one).
// [Shedder.Config] and [Scheduler.Config] return the Config in force, for a
// change of one field.
//
// # When not to use it
//
// For a per-tenant rate limit (a quota in requests per second), use a token
// bucket such as golang.org/x/time/rate: shed does not refuse a tenant that is
// under its quota when the tier has spare capacity, it only arbitrates shortage.
// For one tenant, a semaphore is simpler.
//
// # Concurrency
//
// A Shedder is safe for concurrent use; one mutex guards the buckets, and no
// goroutine is started (a shared timer's function runs when a queue deadline
// falls due). A blocked Acquire waits on its own channel and its context only;
// releases admit the next waiters in drain order and signal them after
// unlocking (a request that queues takes the lock twice, to queue and to
// release; its waiter is recycled outside the lock, and handing a released slot
// to a waiter allocates nothing), and the one deadline timer, armed for the
// earliest deadline among the bucket heads, sheds the expired heads. It finds
// them on a deadline wheel (every queued request is on the list of its
// deadline's millisecond slot), so a sweep visits the slots since the last one
// and not every tenant: BenchmarkSchedulerExpire, a sweep that sheds nothing,
// takes 1.4-2.0 µs with 1,350 or 100,000 tenants queued, where the walk over
// the listed tenants that it replaced took 9.0-11.7 µs and 4.9-7.6 ms in the
// same runs (raw output in bench/shed/expire_wheel_abab.txt), and sweeps
// come often (the timer is armed for the next head's
// deadline, usually a few milliseconds away). A request
// is therefore never served after its deadline, and is shed at its deadline,
// which is never earlier than that of the request ahead of it in its bucket
// (a request queued behind a later deadline waits as long as that one).
// [Shedder.SetConfig] holds the lock too, and visits only the tenants whose
// state may change: those whose weight changes, those ever marked over their
// share when OverShareWindow shrinks, and those with requests queued when a
// deadline is lowered. With 1,350 and 100,000 idle tenants kept it takes 176
// and 170 ns of CPU for an unchanged Config and 720 and 622 ns for one that
// changes a weight, the window and the queue deadline, where the walk over
// every kept tenant that it replaced took 6.0 µs and 2.6 ms, 17 µs and 11.7
// ms, with the fast path level in the same runs (medians of the thread's CPU,
// shed/setconfig_abba62.txt).
// The decision core, [Scheduler], is a plain single-threaded value that takes now
// explicitly, so policies can be tested and simulated on a virtual clock
// (examples/overload runs it for 1,350 tenants); that clock should not step
// back far (see [Scheduler]).
//
// What blocks and allocates: [Shedder.TryAcquire], a release, [Shedder.Stats]
// and the other readers wait only for the mutex, under which [Capacity] Limit
// is called (so it must not call back into the Shedder; a panic in it
// releases the mutex before it goes on, see [Capacity]); only
// [Shedder.Acquire] waits for capacity. Allocation-free are the admissions of
// kept tenants (the fast path), a request shed on arrival (bucket full, no
// capacity, closed: the errors are shared values) and the hand-off of a
// released slot to a queued request once the free lists are warm; a tenant's
// first request, or its first after its state was reclaimed, allocates that
// state.
//
// Tenant state is bounded: [Config.MaxTenants] caps it (sampled-LRU eviction of
// idle tenants) and [Config.IdleTimeout] reclaims idle tenants lazily. The
// recycled queue entries and admission tickets are bounded by recent use: each
// free list keeps at most 64 of them or the most in use during the current
// and the previous second, so loads that rise and fall within that span
// allocate nothing, and a drained burst's entries go to the GC at the first
// release a second or two later, instead of staying for the process's
// lifetime.
//
// # Stats
//
// [Shedder.Stats] returns the totals (admitted, shed by reason, canceled, wait,
// queued, in flight, limit), the tenants kept, queued and reclaimed, and the
// over-share marks and share level; [Shedder.Tenant] and [Shedder.Buckets] return
// per-bucket [BucketStats] (admitted, shed by reason, canceled, queued, wait
// time), Buckets all of them under one hold of the lock. A bucket's counts
// live in its tenant's state: when that is reclaimed ([Config.IdleTimeout],
// [Config.MaxTenants]) its buckets are no longer listed (the totals keep
// their counts), and a tenant that comes back starts again from zero, which
// an exporter of the per-bucket counts sees as a counter reset.
//
// # Cost
//
// Measured on 2 cores (AMD EPYC, Go 1.26) shared with other builds, as CPU time
// of the benchmark's thread per op (wall time on that machine is too noisy to
// quote); see bench_test.go and bench/shed/README.md:
//
//	go test -run '^$' -bench 'FastPath|Naive|ShedBucketFull' -count 8 -benchtime 300ms ./shed/
//
// The fast path (Acquire + release, free capacity, nothing queued) allocates
// nothing, reads the clock once every 64 admissions (the coarse clock that
// stamps tenants), and at priorities 0 and 1 touches one 32-byte slot of the
// tenant table (the tenant's key, stamp and direct-admission counts; the
// rest of its state only when those 8-bit counts would overflow and are
// folded into it, or for a cost above 255); a priority of 2 or more is
// counted in the tenant's state. When traffic comes from a hot set of
// tenants it costs 44-45 ns with 1,350 or 10,000 tenants kept and 50 ns with
// 100,000 (a bare mutex-and-map counter: 30-31 ns). Visiting every kept
// tenant in turn it costs 47, 48 and 73 ns at 1,350, 10,000 and 100,000
// tenants; in a random order, the worst case for the caches, 50, 53 and 77
// ns (the bare counter: 30, 31 and 48 ns, growing as much, 1.6x, over that
// range). In the same run
// the slot loads in one pass with the hashing cost 99 ns at 100,000 tenants
// in a random order; an earlier run had 64-byte slots at 122 ns and the
// map-based fast path of earlier versions at 326 ns. On a later host
// (bench/shed/fastpath_host31.txt) every pattern cost 43-65 ns, in a random
// order 48, 52 and 64 ns (the bare counter 28.5, 29 and 43). Past about 49,000
// tenants, where the table outgrows the caches, the admissions' bookkeeping
// is deferred and applied 64 at a time, so that the processor overlaps their
// cache misses instead of taking them one after the other; every reader
// (stats, a queued request, a config change) applies what is pending first.
// Shedding a flooding tenant's request (bucket full) allocates nothing.
// Against peers in the same run (bench/shed, raw output in
// bench/shed/peers_host61_since.txt, the process's CPU per decision): an
// admission costs 0.35x the CPU of a per-tenant golang.org/x/time/rate Allow
// and 0.16-0.17x that of go-concurrency-limits' per-tenant partitions; a
// rejection 0.74x rate's and 0.90x go-concurrency-limits', which refuses
// without reading the clock. Before the slow paths read one monotonic clock
// instead of time.Now (0.84x the CPU of a rejection,
// bench/shed/clock_since_abba.txt), the same host's run read 0.95x and
// 1.30x (bench/shed/peers_host61.txt). On the forty-third session's host
// (peers_host43.txt, the thread's clock) 0.51x, 0.12-0.13x, and a rejection
// level with both (1.08x and 0.99x).
//
// In the overload experiment (examples/overload: 1,344 normal tenants at 75%
// of capacity, 6 noisy at 10% each), no normal tenant sees a rejection and
// 100% of their requests finish within the deadline, with requests of cost 1
// and with noisy requests costing 4, while a global FIFO, per-tenant round
// robin by count (cost 4), Kubernetes APF shuffle sharding with hands of 8
// (64/8, 128/8) and percentage partitions all fail some normal tenants. APF
// as it ships (128 queues, hands of 6, dealt under the global-default
// FlowSchema that users' requests match) rejects requests (a timeout or a
// full queue) of 1,163 and 1,164 of the 1,344 at cost 1 and 4; dealt under
// other names its hands go from isolating every one (the empty name,
// workload-low) to 1,271 with a rejection: its isolation depends
// on where the noisy tenants' hands fall, shed's does not. In the real mode (real
// goroutines, a CPU-burning handler, aimd holding the CPU at 90%), over 631
// runs on shared 2-core VMs, no normal tenant was rejected in 626, shed + aimd
// took 1.04-3.64% of the CPU (above the 3% target in 52 runs) and goodput
// read 95.92-105.24% (below 98% in 20, mostly from the warm-up's calibration
// of the capacity); the rejections followed a core taken by the hypervisor,
// a stall of the process, or a pause of the harness since removed.
// examples/overload/README.md has the tables and the commands, and its
// HISTORY.md every run and what changed because of it (the share level as
// the maximum, FreshArrivalOrder, the 80 ms queue deadline, ShedOnArrival,
// a queued Acquire that no longer grows the request goroutine's stack, nor
// does a release's dispatch or a queued request's Push under the lock).
//
// A queued request's share of that cost is mostly cache misses: the tenant's
// state, its head request, the waiter, its channel and goroutine. A queued
// tenant's drain fields and both buckets sit in the first three cache lines
// of its state (its counters after them): a queued request's Push and Pop
// take 12-15% less time when those lines come from memory
// (BenchmarkQueuedCold, paired rounds; no difference from the shared cache
// at 1,350 tenants; bench/shed/README.md), and the median share at cost 1
// went from 2.98% to 2.69% in 16 alternating runs; in 42 runs of the
// seventeenth session at cost 1 the share was 1.55-3.51% (median 2.67%, above
// 3% in 13), rising with the time goroutines waited on the lock, itself
// longer when the host served those misses slowly: the same binary read
// 1.55% and 3.46% within 20 minutes (examples/overload/HISTORY.md). What
// moves it is the time a cache line takes between the two cores, which on
// these VMs changes within minutes: in the thirtieth session's 48 runs (all
// of which met every target) the 4 with a short round trip at both ends
// (58-431 ns) read 1.31-1.62%, the 36 with a long one at both (0.86-1.24 µs)
// 1.83-2.94%.
package shed
