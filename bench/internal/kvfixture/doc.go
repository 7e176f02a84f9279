// Package kvfixture builds the data set the memkv and txn comparisons share: the same
// keys and value loaded into a memkv store and into badger in its in-memory mode, so
// both sides of a comparison start from identical contents.
//
// [Keys] makes the keys, [Memkv] and [Badger] load them with [Value], both in one
// fixed shuffled order, whatever the order of the slice they are given: memkv lays
// its keys out in memory in the order they are first written and badger's
// WriteBatch scatters them, so a load in the slice's order handed memkv, alone, the
// locality of the orders the benchmarks read in (ascending keys for a scan). Its
// users are the benchmarks of bench/memkv and bench/txn. It is internal: a fixture
// shared by two test packages of the bench module, not API.
//
// # When not to use it
//
// Not for a comparison that needs other contents or settings: every key holds the same
// 16-byte value, the memkv store has the default Config (memkv.Config{}) and badger
// runs in memory with its default options and no logger, so nothing reaches a disk.
// Keys are "key%08d", eight digits wide: past 100,000,000 keys they grow longer. Not
// outside tests: a failure ends the test or benchmark (b.Fatal).
//
// # Concurrency
//
// The package keeps no state of its own (Value is shared and must not be written).
// Memkv and Badger call b.Fatal on failure, so call them from the goroutine running the
// test or benchmark; each returns a store of its own, which its callers may then use
// from many goroutines as memkv and badger allow. Neither it nor a memkv store starts a
// goroutine; badger starts its own, which end when the DB is closed: Badger closes it
// in a b.Cleanup, while a memkv store needs no closing.
//
// # Stats
//
// None.
package kvfixture
