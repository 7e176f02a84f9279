// Package mapshrink gives back the memory of a Go map that shrank: a map
// keeps the table of the most keys it held, and ranging over it costs in
// proportion to that table, not to what it holds. A caller tracks the peak
// (the most keys since the map was made) and, where it deletes, asks Due;
// Rebuild then copies the keys left into a map of their size.
//
// Rebuilding at a quarter of the peak copies at most a third of the keys
// deleted since the last rebuild, so deleting stays amortized constant time.
// The same rule holds for a slice whose array outgrew what it holds (shed's
// free tickets): Due with the array's capacity as the peak.
//
// [Due] and [Rebuild] serve the maps of cache (fill records), coalesce
// (keys in flight), batcher (a shard's groups), memkv (its index stripes
// and idempotency records) and shed's free list (Due only). It is internal:
// one rule for several packages of the root module, not API.
//
// # When not to use it
//
// Not for a map that holds about as many keys as it ever did: Due never
// fires. Not for a small map: one whose peak is below the min given to Due
// is never rebuilt. Not where the caller cannot afford
// one copy of the keys left in a single call: Rebuild allocates the new map
// and copies every entry at once, under whatever lock guards the map. Values
// are copied as they are, so pointers in them keep their targets: Rebuild
// does not deep-copy.
//
// # Concurrency
//
// Due is a pure function. Rebuild reads m and returns a new map; it writes
// nothing shared, but a map must not be written while it is read, so call it
// under the lock that guards m, and store its result there too. Neither keeps
// state or starts a goroutine.
//
// # Stats
//
// None: it counts no rebuilds.
package mapshrink
