// Package memkv is an embedded, in-memory, ordered, multi-version key-value
// store with optimistic commit validation, garbage collection of old versions
// and a change feed. It is the reference engine behind package txn (it
// implements txn.Engine without importing it), the store the cache tests
// consume a CDC stream from, and the reference gateway's default backend.
//
// # Model
//
// Every commit with writes creates a version (a counter starting at 1).
// [Store.Get] and [Store.Scan] read at a version: they see exactly the
// commits at or below it. [Store.Commit] takes a [CommitRequest]: the read
// version, the keys and ranges read, and the writes. It fails with a
// *[ConflictError] if any write committed after the read version overlaps a
// read key or read range. A range read that hit its limit should be sent as
// the range up to the key after the last key returned (a reverse one: from
// the last key returned); empty scans still count, and deletions and range
// clears count as writes, so phantoms are caught.
// [CommitRequest.WriteRanges] adds write-conflict ranges with no data.
//
// # Sharding and concurrency
//
// The key space is cut into range shards (Config.Splits, fixed at [New]:
// [Store.SetConfig] refuses a change of them, as it and New refuse any Config
// out of range, with an error wrapping [ErrInvalidConfig]), each an ordered
// skiplist. Range sharding rather than hashing keeps range reads a simple
// walk of consecutive shards, with no k-way merge. Range reads take no lock:
// they follow atomic pointers, and a node is linked only once complete. Point
// reads and point validation go through a hash index of the nodes striped
// over 256 read-write locks (a lookup holds one read lock for a map access),
// which is several times faster than a skiplist search. Commits are sequenced
// by one mutex, because optimistic validation needs one order of commits, and
// each commit's incremental GC sweep runs under it. A commit locks only the
// shards it writes or sweeps, one at a time: [Store.GC], which takes no
// commit mutex and locks one shard at a time, stalls only a commit that
// writes the shard it holds or whose incremental sweep reaches that shard,
// and, as that commit holds the mutex, the commits sequenced after it. All
// methods are safe for concurrent use.
//
// # History window and GC
//
// Versions older than the newest minus Config.HistoryVersions fall behind the
// horizon: reads and commits at such a read version fail with [ErrTooOld]
// (restart the transaction); the blind writes [Store.Put] and [Store.Delete]
// take the newest version and never do, nor does a commit with no read keys
// or ranges to validate. Config.HistoryBytes moves the horizon on sooner,
// once the commits after it wrote more than that many bytes, up to the
// newest version: then even a read version just taken from
// [Store.ReadVersion] fails if large commits land before it is used. Each
// commit sweeps the keys its Sets write (not the keys its range clears
// delete: the rotating sweep or [Store.GC] reach those) and Config.GCStep
// keys from a cursor that rotates over the whole store; [Store.GC] sweeps
// everything, and may run beside the commits' sweeps (a key it collects and
// a later write re-creates is never unlinked again). The horizon moves only under the commit mutex, so
// validation never races with the collection of a version it needs; readers
// re-check the horizon after reading. A sweep walks a key's versions from the
// oldest toward the newest and stops at the newest one behind the horizon,
// so it costs the versions it frees, whatever the key holds inside the
// window: walking from the newest, a key written on most commits (a counter)
// made every sweep that reached it read the whole window (16 such keys alone
// in a store with a window of 2^16: 164 µs per Put, 0.46 µs since;
// go test -bench PutHot ./memkv/, bench/memkv/README.md). The range writes
// and idempotency keys kept for the window are dropped as it moves in
// amortized constant time (a commit carrying an idempotency key or a range
// clear, window 2^16: 89 and 192 µs before, 3.4 and 3.9 µs since; go test
// -bench CommitLogged ./memkv/, raw in bench/memkv/droplog_abba.txt).
//
// # Change feed
//
// [Store.Subscribe] returns a [Subscription] delivering every write after its
// start version in commit order, with a checkpoint event every
// Config.CheckpointEvery commits (and on [Store.Checkpoint]): a checkpoint at V
// promises every write <= V was delivered. A checkpoint still buffered is
// replaced by the next one if no write came between them, so an idle
// subscriber holds one checkpoint whatever the ticks. Buffering is bounded per
// subscriber (Config.FeedBuffer); a subscriber that falls behind is cut off
// with [ErrOverflow] after receiving everything buffered, and must resubscribe
// and treat derived state as stale; the cut detaches it from the store, so
// commits no longer visit it even before its owner closes it. Commits never
// block on subscribers.
//
// # Faults and bugs for tests
//
// Config.Faults delays commits, fails them before validation ([ErrInjected])
// or drops the reply after applying them ([ErrCommitUnknown]); an
// idempotency key lets the retry of a commit with writes learn the outcome
// ([ErrAlreadyCommitted]; a read-only commit records no key and is validated
// again).
// Config.Bugs weakens validation on purpose (ignore read keys, read ranges, or
// the history window); txn's proofs show each is caught.
//
// # When not to use it
//
// It is not durable and holds everything in memory; it is one process, with
// one commit sequencer, so commits do not spread over cores (one goroutine
// committed a blind Put every 0.70 us of wall time, about 1.4 million a
// second, in bench/memkv/peers_host43.txt). Use a real store (behind
// txn.Engine) for data that must survive.
//
// # Stats
//
// [Store.Stats] returns commits, conflicts by cause, too-old, too-large and
// injected failures, commits deduplicated by idempotency key, dropped
// replies, point and range reads, GC work, feed events and overflows, and
// the gauges version, horizon, keys and versions held, shards and open
// subscribers.
//
// # Measured
//
// On 2 cores shared with other jobs (load average about 12), Go 1.26, in
// bench/txn (cd bench && go test -run '^$' -bench Commit2R2W -count 8
// ./txn/): validating and applying a transaction of 2 reads and 2 writes
// runs at 433k transactions/s of wall time on one goroutine (637 ns of CPU
// each, 3 allocations; 4 since each value written gets its own copy, so that
// GC frees an overwritten value whatever else its commit wrote, at no
// measurable cost in time: bench/memkv/value_copies_abba.txt, 12 A B B A
// rounds, 1.034 against 1.033 us); badger's in-memory commit of the same transaction
// takes 11.8 us of CPU. The 433k/s, 637 ns, 3 allocations and 11.8 us are
// benchstat's summary in bench/txn/README.md, whose raw output was not
// committed (an idle re-run's is: bench/txn/results-quiet.txt; the
// fifty-fourth session's, bench/txn/results_host54.txt, read 594 ns of wall
// time per transaction, 1.68M/s, 723 ns of CPU and 4 allocations, against
// badger's 13.3 us and 14.7 us). Random
// limited range reads raise false conflicts on
// about 8 % of aborts (go test -run RandomRange -v ./txn/). As a plain
// backend (cd bench && go test -run '^$' -bench . -count 8 ./memkv/), CPU
// time per operation in the forty-third session's run (raw output in
// bench/memkv/peers_host43.txt): a point read 201 ns with two goroutines
// reading, 0 allocations (badger 1.69 us); a 100-key scan 0.73 us (badger
// 17.6 us); a blind committed write 0.94 us (badger 5.5 us). Every figure
// above had memkv loaded in the order the benchmarks read it, so its keys
// were neighbours in memory, a locality badger never had; with both stores
// loaded in one shuffled order (sixty-third session, an idle host,
// bench/memkv/peers_host63.txt and bench/txn/results_host63.txt): a
// point read 234 ns of CPU (badger 2.31 us), a 100-key scan 2.67 us (badger
// 20.2 us), a blind write 1.42 us (badger 7.2 us), and the 2R2W validation
// 2.08 us of wall time, 481k transactions/s (badger's whole transaction 20.4
// us). See bench/txn/README.md and bench/memkv/README.md.
package memkv
