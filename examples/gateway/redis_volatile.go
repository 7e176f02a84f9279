package main

import "sync/atomic"

// expiryFlag says whether a Redis shard may hold keys with an expiry
// (volatile): while set, the caching tier's fills of the shard fetch each
// key's PTTL. The feed clears it at a (re)subscription whose INFO keyspace
// shows no key with an expiry (psubscribed); the feed's notifications, the
// marker loop and the gateway's own writes that give a key an expiry set it.
//
// A clear must not undo a set it did not see. A write through the gateway
// marks the shard before it is sent (writing), and a subscription that
// read INFO keyspace before the write ran, then cleared the flag, left the
// shard unmarked: the client's next GET filled the key with no expiry, and
// read it back after it expired for as long as the feed lagged. So a clear
// is a compare-and-swap against the state read before INFO (snapshot),
// whose generation every set bumps; and writes marked before that snapshot
// but not yet answered, which INFO may not show, forbid the clear.
//
// The zero value is clear. Safe for concurrent use.
type expiryFlag struct {
	state  atomic.Uint64 // bit 0: set; bits 1..63: generation, bumped by every set
	writes atomic.Int64  // writes that give a key an expiry, marked and not yet answered
}

// isSet reports whether the shard counts as volatile.
func (f *expiryFlag) isSet() bool { return f.state.Load()&1 != 0 }

// set marks the shard volatile. The generation moves first, so that a clear
// against an older snapshot fails even while the bit is already set.
func (f *expiryFlag) set() {
	f.state.Add(2)
	f.state.Or(1)
}

// writing marks the shard volatile before a write that gives a key an
// expiry is sent; done is called once it is answered (or failed).
func (f *expiryFlag) writing() (done func()) {
	f.writes.Add(1)
	f.set()
	return func() { f.writes.Add(-1) }
}

// snapshot marks the shard volatile and returns the state to clear against
// (clearIf) once INFO, read after it, shows no key with an expiry; ok is
// false while a write that gives a key an expiry is on its way: INFO may
// not show it yet, so no clear is allowed.
func (f *expiryFlag) snapshot() (s uint64, ok bool) {
	f.set()
	s = f.state.Load()
	return s, f.writes.Load() == 0
}

// clearIf clears the flag if nothing set it since snapshot returned s.
func (f *expiryFlag) clearIf(s uint64) { f.state.CompareAndSwap(s, s&^1) }
