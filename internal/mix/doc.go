// Package mix is the splitmix64 finalizer, the one integer mixer the kit
// uses wherever it spreads bits: the cache's integer keys and read stripes,
// the ring's probe sequence, rollout's buckets and the gateway's metric
// stripes. It is a bijection on uint64 in which every input bit moves about
// half of the output bits.
//
// [Mix64] also draws the cache's admission jitter (its policy's splitmix64
// generator) and samples its hits, and examples/client picks a failover
// region with it. It is internal: a shared helper of the root and examples
// modules, not API. Placement in hashring and rollout depends on its values,
// which its tests pin to the published splitmix64 sequence: changing them
// moves keys between hosts and units between buckets.
//
// # When not to use it
//
// Not as a hash of bytes or strings: it mixes one uint64 (rollout hashes its
// unit with xxhash first, the cache hashes string keys with hash/maphash).
// Not as a keyed or cryptographic hash: it is a bijection that anyone can
// invert, so keys an adversary chooses can be made to land where they like;
// the cache XORs a random per-cache salt in before mixing integer keys. And
// Mix64(0) is 0.
//
// # Concurrency
//
// Mix64 is a pure function: no state, no goroutine, no allocation; safe for
// any number of goroutines at once.
//
// # Stats
//
// None.
package mix
