// Package batcher is the shared batcher of a gateway tier: it groups concurrent
// requests by group (a tenant x physical shard, say) and sends each group's
// requests to the backend as one call, so that many small requests from many
// unrelated callers become a few large backend RPCs ("fewer backend requests
// mean lower QPS and CPU"; a linger window smooths micro-bursts).
//
// # Use
//
//	b, err := batcher.New(batcher.Config[Key]{MaxItems: 128, Linger: 2 * time.Millisecond},
//		func(ctx context.Context, g Shard, keys []Key, out []batcher.Result[Value]) error {
//			// one backend call for all keys; set out[i] for keys[i]
//			return nil // or the call's error, which every item then gets
//		})
//	defer b.Close()
//	v, err := b.Do(ctx, shard, key) // from any number of goroutines
//
// A batch is flushed when it holds [Config.MaxItems] items, when the next item
// would take it past [Config.MaxBytes] (sizes from [Config.Size]), or when
// [Config.Linger] has passed since its FIRST item, whichever comes first. Every
// item gets its own [Result] (out[i]); an error returned by the [FlushFunc] reaches
// every item of the batch; a panic reaches every item as a [*PanicError].
//
// A caller with items for several groups (a command over several shards)
// adds all but one with [Batcher.Start], which does not wait, sends the last
// with Do, then collects the others with [Pending.Wait]: the items travel at
// the same time without a goroutine per group (BenchmarkTwoGroups, -cpu 2,
// 64 callers, medians of 8 runs: 0.72x the time and 6 allocations instead of
// 8 per pair against a goroutine per extra group;
// bench/batcher/twogroups_host46.txt).
//
// # Flush policies
//
// With the default [FlushOnLinger], every partial batch waits out the linger:
// at low concurrency each request pays it in full (a lone caller with a 1 ms
// linger waits 1 ms plus the backend). [Config.Policy] = [FlushNatural] is
// natural ("smart") batching, the group-commit rule: an item that finds no
// flush of its group in flight is sent at once, with whatever the group had
// pending; items that arrive while a flush is in flight gather in the open
// batch, which goes the moment that flush returns, when it is full, or when
// Linger has passed since its first item (Linger stays an upper bound, so a
// slow flush does not hold the next batch back longer than that). Batches then
// grow with the load instead of with the timer: one item per call for a lone
// caller, which sees the backend's latency only; large batches when the backend
// is the bottleneck. Against FlushOnLinger it sends more, smaller batches at
// moderate load (see BenchmarkPolicy under Measured), and with a backend that
// answers instantly it hardly batches at all, since nothing is in flight long
// enough to gather behind.
//
// # Contexts
//
// The flush runs on a context that is no single caller's: it carries no caller's
// values and ends [Config.FlushTimeout] after dispatch. A caller whose context has
// already ended when it calls Do gets ctx.Err() at once, its item never sent. A
// caller whose context ends while its batch is open is removed from the batch
// (never sent) and gets ctx.Err(). Both count in [Stats.Cancelled].
// A caller whose context ends after dispatch also gets ctx.Err() at once, but its
// item stays in the backend call, which runs to its end, and its result is dropped.
//
// # Safeguards
//
// Holding requests in memory invites OOMs; two safeguards follow the ZGateway
// design. Idle eviction: the entry of a group that has had nothing pending for
// [Config.IdleTTL] is removed, lazily, by the goroutine that opens a batch (at most
// every IdleTTL/2, and at most every millisecond, so a sweep over all groups
// stays amortized) or by [Batcher.EvictIdle]; shard maps that shrink to a quarter
// of their peak are rebuilt, since Go maps keep their memory on delete. In-flight
// cap: while [Config.MaxInFlight] dispatched batches have not returned, [Batcher.Do]
// returns [ErrOverloaded] at once, and a batch that closes while the cap is
// reached is answered ErrOverloaded rather than sent; items are never queued
// without bound, and at most MaxInFlight x MaxItems items are in the backend,
// except while [Batcher.Close] sends every batch not yet dispatched whatever the cap, or
// after SetConfig lowered the cap below the batches then in flight.
//
// Optional de-duplication ([Config.Key]) sends identical items of one batch once
// and fans the result out (the same Resp to each: a slice, map or pointer in
// it is shared, so callers must treat it as read-only); it composes with a
// coalescing layer in front (which merges identical in-flight calls across
// batches).
//
// # When not to use it
//
// Do not batch when the backend has no multi-item call (batching would only add
// the linger to every request), for requests that must not wait at all (the
// linger is the price of each partial batch), or for single-caller workloads
// where the caller can batch itself. It is not a queue: it never holds more than
// one open batch per group and rejects rather than buffers under overload.
//
// # Concurrency
//
// A [Batcher] is safe for concurrent use. The group map is split into 64 shards,
// each with its own mutex guarding its groups and their open batches; an item
// costs one shard lock, an append to the batch's slab, and a wait on the batch's
// channel (one channel per batch, closed once to wake all its callers). No
// goroutine is started by [New]: each open batch arms one linger timer and each
// dispatched batch runs its flush on a goroutine of its own (bounded by
// MaxInFlight). Under FlushNatural, a batch sent at once by its only item
// arms no timer; a caller whose context cannot be cancelled runs the flush that
// its own item closed on its own goroutine, and a flush goroutine goes on with
// the batch its group gathered meanwhile (one shard lock per batch to find it). Batches are recycled through a sync.Pool once their last caller
// has read its result. [Batcher.Close] flushes every open batch and returns only
// when every flush, timer and goroutine is gone.
//
// # Stats
//
// [Batcher.Stats] returns items, requests sent (after de-duplication), batches,
// failed flushes, mean fill, de-duplicated, cancelled and rejected items, evicted
// and live groups, pending and in-flight gauges, and flush latency (sum and max;
// see [Stats.MeanFlushLatency]).
//
// # Why there is no TryDo
//
// Admission never blocks: Do returns ErrOverloaded or ErrClosed at once. What Do
// waits for is the batch, which is its purpose; a caller that cannot wait passes
// a context with a deadline and is removed from the batch when it ends.
//
// # Measured
//
// 256 goroutines, MaxItems 128, 1 ms linger, trivial backend, every key unique,
// on a 2-core machine shared with other jobs (bench/batcher/README.md has the
// benchstat tables, the command and the peers' configuration):
//
//	                  -cpu 2 CPU/item  -cpu 1 CPU/item  allocs/item  fill
//	tierkit batcher        212 ns           202 ns           0       99.3%
//	dataloadgen            273 ns           240 ns           1       99.3%
//	dataloader v7          645 ns           556 ns           8       99.4%
//	api/support/bundler    335 ns           307 ns           1       99.2%
//
// CPU/item is the process's CPU time per item, which does not depend on how much
// of the machine other jobs take. The wall time per item (650 ns median at
// -cpu 2; dataloadgen 765 ns, dataloader 1087 ns, bundler 826 ns) was dominated
// by them. Re-run on the idle machine (-count 6, -cpu 2): 228 ns per item wall,
// 0 allocations, 99.7% fill; dataloadgen 293 ns, bundler 381 ns, dataloader
// 466 ns (bench/batcher/README.md). Those runs gave bundler one reply channel
// shared by all callers; with its replies pooled (a later run on a slower
// host: tierkit 353 ns) it took 1.53x this package's time, dataloadgen 1.32x,
// dataloader 1.99x. Reproduce with
//
//	cd bench && go test -run '^$' -bench . -cpu 2,1 -count 8 ./batcher/
//
// TestStress (64 goroutines, 50 groups, random deadlines, batch and item errors,
// a cap that trips, SetConfig racing with traffic, including the byte limit)
// checks under -race that no item is lost or duplicated; 40,000 calls by default,
// and with TIERKIT_LONG=1 400,000 calls per run (the forty-seventh session's,
// bench/batcher/stress_long_host47.txt: 72,905-97,090 sent in 67,267-71,877
// batches, 293,054-326,461 rejected, 307-9,519 cancelled before dispatch and
// 34,285-36,559 idle groups evicted in each of the three runs; 13.5 s for the
// three under -race):
//
//	TIERKIT_LONG=1 go test -race -run TestStress -v ./batcher/
//
// It runs once per policy and once with SetConfig flipping the policy under
// traffic. TestNaturalStressBounds (FlushNatural with a byte limit, random
// cancels, a jittery backend) also checks that no batch exceeds MaxItems or
// MaxBytes (an oversized item goes alone).
//
// FuzzBatcher asserts the same in virtual time for arbitrary schedules (groups,
// arrival gaps, deadlines, latency, MaxItems, linger, cap, de-duplication
// that merges pairs of items, the byte limit, both policies), and that every
// merged item gets its pair's answer: 176,020 executions in 60 s on one
// worker without a failure in a review's run (bench/batcher/fuzz_dedup.txt,
// on a host shared with other work; the forty-seventh session's 219,613 in
// bench/batcher/fuzz_host47.txt ran the target from before, whose keys never
// matched, so that nothing was merged) with
//
//	go test -run '^$' -fuzz FuzzBatcher -fuzztime 60s -parallel 1 ./batcher/
//
// In virtual time (TestFillVersusLoad), batches are 100% full once the offered
// load exceeds MaxItems/linger; in the slow-backend scenario
// (TestSlowBackendRejectsWithinOneLinger: 1 ms -> 200 ms backend latency) the
// first ErrOverloaded comes 1.3 ms after the step with a 4 ms linger (the test's
// log, in bench/batcher/stress_long_host47.txt), and items
// in the backend never exceed MaxInFlight x MaxItems.
//
// Flush policies, 1, 2 and 50 submitters in a closed loop on one group, a
// backend that spins 50 us per call, MaxItems 128, 1 ms linger
// (BenchmarkPolicy, -cpu 2, 6 runs, benchstat medians; a machine loaded by
// other jobs, so the p99 column swings by several times between runs; see
// bench/batcher/README.md for the command):
//
//	submitters  policy    mean latency  p99       items/batch  allocs/item
//	1           linger    1421 us       6769 us    1.0         6
//	1           natural    120 us       2649 us    1.0         1
//	2           linger    1313 us       5325 us    2.0         3
//	2           natural    159 us        702 us    1.0         1
//	50          linger    1347 us       4298 us   50.0         0
//	50          natural    321 us       3543 us   15.7         0
//
// With the workload (256 callers, trivial backend) in the same run,
// FlushOnLinger kept its figures (0 allocations, 99.2% fill; CPU per item
// within noise of the code before FlushNatural existed), while FlushNatural
// sent 1.7 items per batch (1.3% fill) at 414 ns of CPU per item against 241:
// with a backend that answers at once, natural batching has nothing to gather
// behind, which is why it is not the default.
//
// The allocation columns above were measured when the flush context lived in
// the pooled batch. It is now one small allocation per batch (a flush may keep
// its context after it returns, and a reused one changed under it): 1/128 of
// an allocation per item at full batches (still 0 allocs/op, 1 B/op), one more
// per batch where batches are small.
//
// # Runtime tuning
//
// [Batcher.SetConfig] swaps every knob atomically (linger, policy, MaxItems,
// MaxBytes, MaxInFlight, IdleTTL, FlushTimeout, Size, Key); open batches keep
// their linger timer, everything else applies from the next item. A Config out
// of range is refused by New and SetConfig with an error wrapping
// [ErrInvalidConfig], and SetConfig then keeps the previous one.
package batcher
