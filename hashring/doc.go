// Package hashring maps keys to weighted nodes with consistent hashing: every node
// gets its weighted share of the keys to within one slot in 2^18, a membership or
// weight change moves about the least share any placement could move, and lookups
// are one hash and one table load, lock-free and allocation-free.
//
// # Use
//
//	ring, err := hashring.New(hashring.Config{}, []hashring.Node{
//		{ID: "gw-1", Weight: 26}, {ID: "gw-2", Weight: 126}, // weight = cores
//	})
//	owner, err := ring.Lookup("user:42")          // or LookupHash(h)
//	replicas, err := ring.LookupN("user:42", 3)   // distinct, owner first
//	next, err := ring.Remove("gw-1")              // a new ring; ring is unchanged
//
// [Ring.Add], [Ring.Remove], [Ring.Reweight] and [Ring.Update] (a whole weight table
// at once, as a control plane publishes it) return a new immutable [Ring].
// [Ring.LookupBounded] adds consistent hashing with bounded loads: with a [Loads]
// tracker (Acquire/Release per request), no node is given a request that takes it
// above ceil(c x its weighted share of the requests in flight) (requests still in
// flight on nodes that left the ring count too; computed in floating point, the
// bound can come out one higher or one lower with fractional weights or a c such
// as 1.1: see LookupBounded).
//
// # Design
//
// The hash space is cut into [Config.Slots] slots (2^18 by default); the top bits of a
// key's xxhash64 pick the slot and the slot's entry names the node. A node of weight
// w owns floor(q) or ceil(q) slots, q = Slots x w / (sum of weights): its share is
// exact to one slot. A derived ring starts from its parent's table and moves only
// what that band forces: the slots of nodes that left, and the surplus of nodes now
// above their band, go to nodes below theirs; a node whose count is still inside its
// new band keeps its slots, except that when the counts inside their bands add up to
// more than the slots, some of those nodes give up one slot each. Join, leave and
// reweight therefore move the optimum (the sum of the positive changes of expected
// shares) to within one slot per node.
//
// The alternatives, measured (bench/hashring/README.md has the tables):
//   - a ring of virtual nodes (groupcache, stathat, serialx, lafikl) balances as
//     1/sqrt(points per node): peak/mean 1.2-3.7 at their usual point counts, and
//     1.02 at 1000 nodes would take ~25,000 points per node;
//   - weighted rendezvous hashing (-w/ln(u) scores, Schindelhauer and Schomaker) is
//     exact in expectation and minimal in movement, but O(n) per lookup: 18.8 µs
//     wall at 1000 nodes with the logarithm (BenchmarkLookup/naive-rendezvous,
//     median of 8 spread 14.6-31.2 µs on a shared host; raw output in
//     bench/hashring/lookup-naive-rendezvous.txt), 1.1 µs of CPU for the
//     unweighted go-rendezvous (1.2 µs in the earlier run at load 4-7);
//   - a rendezvous-filled table of slots is O(1) but keeps the per-slot noise
//     (1/sqrt(262) = 6% at 1000 nodes) and costs Slots x n score evaluations to
//     build; maglev's table is balanced but moves 1.5-4.3x the optimum on a change;
//   - jump hashing is balanced and minimal, but has no weights and removes only the
//     last bucket.
//
// The price of the design: placement depends on the sequence of memberships a ring
// went through, not only on the current one. [New] is a pure function of the set of
// (ID, Weight) pairs and the Config (input order does not matter), and every derivation
// is deterministic, so processes that build the same ring and apply the same changes
// route identically (the golden vectors in testdata freeze this across versions).
// A process that starts later must load the current ring ([Ring.MarshalBinary],
// [Unmarshal]: 2 bytes per slot) rather than rebuild it from today's members.
//
// # When not to use it
//
//   - Independent clients that must agree on placement but cannot share a ring and
//     do not see the same sequence of changes: use rendezvous hashing (small n) or a
//     vnode ring and accept their imbalance.
//   - More than [MaxNodes] (65,535) nodes, or very many live rings where 512 KiB per
//     ring matters (lower [Config.Slots]; balance is then 1/(share x Slots)).
//   - Keys whose hashes are not uniform: [Ring.LookupHash] trusts its input.
//
// # Concurrency
//
// A Ring is immutable: all methods are safe for concurrent use and lookups never
// lock. Publish rings through an atomic.Pointer[Ring]: requests Load it, the control
// loop derives the next ring and Stores it; lookups in flight finish on the ring
// they loaded. A Load before the first Store reads nil: lookups on a nil *Ring
// return [ErrEmpty], as on an empty ring. [Loads] is safe for concurrent use; its
// Acquire and Release are lock-free once a node is counted (the first Acquire of a
// node and a Forget take a short lock inside a sync.Map). A bounded lookup and the
// caller's Acquire are two steps, so racing callers can take a node past its bound
// by at most their number.
//
// # Stats
//
// [Ring.Stats] describes a ring: nodes, slots, total weight, the exact max share /
// expected and peak/mean, and for a derived ring the share of keys that moved next to
// the least share that had to ([Stats.MovedShare], [Stats.OptimalMovedShare]).
// [Ring.Share] gives one node's exact share. [Loads.Stats] snapshots the in-flight
// gauge and the Acquire/Release counters.
//
// # Measured
//
// 2 cores (shared with other jobs), Go 1.26; tables, commands and the peers' figures
// in bench/hashring/README.md. At 10 / 100 / 1000 nodes:
//
//   - balance, exact from the slot table: peak/mean with equal weights 1.0000 /
//     1.0002 / 1.0033; max share/expected with 26-126 "core" weights 1.0000 / 1.0005 /
//     1.0041; on the same 10^6 keys as the peers, where a perfect placement
//     reads 1.006 / 1.027 / 1.139 from sampling alone, 1.011 / 1.042 / 1.119
//     (serialx/hashring 1.25 / 1.37 / 1.62);
//   - moved/optimal, exact, with 26-126 "core" weights: leave 1.0000 / 1.0000 /
//     0.9999, join 1.0000 / 0.9997 / 0.9979, reweight 1.0000 / 0.9996 / 0.9932
//     (equal weights: up to 1.0002 for a leave); on 10^7 real keys at 1000 nodes:
//     leave 1.002, join 1.004, reweight 0.992 (maglev moves 1.5x at 100 nodes and 4.3x
//     at 1000; buraksezer 1.3-1.9x);
//   - Lookup: 10.2 / 10.1 / 11.2 ns of CPU, 0 allocations, wall 10.2 / 10.2 /
//     11.1 ns on an idle host (bench/hashring/lookup-raw-2026-12-07.txt; 8.6 /
//     9.0 / 9.0 ns of CPU in the run before, on a loaded host); with
//     2 goroutines sharing the ring 10.4 / 10.5 / 14.2 ns of CPU per lookup, 5.3 /
//     5.3 / 7.2 ns wall (nothing shared is written). In CPU per lookup go-maglev,
//     the fastest peer, is 1.3x / 1.4x / 1.7x; buraksezer 3.2-3.3x (9.4-11.5x
//     with 2 goroutines, on its read lock); vnode rings 9.7-93x;
//   - New with 1000 nodes: 0.53 ms of CPU (0.45 ms wall) on an idle host
//     (bench/hashring/build-leave-raw-host64.txt; 0.33 ms of CPU, 0.92 ms
//     wall, in a loaded run before); Remove at 1000 nodes: 1.07 ms of CPU
//     there (maglev 72x, serialx 86x), 0.80 ms in the first run, 1.49 ms in
//     a re-run at load ~7.
//
// Reproduce: in bench/, `TIERKIT_LONG=1 go test -run 'Distribution|Tierkit' -v
// ./hashring/` and `go test -run '^$' -bench . -count 8 -timeout 30m ./hashring/`; in this
// package, `go test -run 'Balance|Movement' -v .` checks the same targets.
package hashring
