package batcher

// The flush decisions, kept pure (no lock, no clock) so that a table test can
// check them: enqueue and the end of a flush apply them under the shard lock.

// action is what happens to a batch once an item has joined it.
type action uint8

const (
	keepOpen  action = iota + 1 // wait for more items (Linger, or the return of the group's flush)
	flushFull                   // MaxItems or MaxBytes reached
	flushIdle                   // FlushNatural: no flush of the group is in flight
)

// decide returns the action for a batch holding live items of bytes bytes, in a
// group with flushing flushes in flight.
func decide(p FlushPolicy, live, bytes, maxItems, maxBytes, flushing int) action {
	switch {
	case live >= maxItems || (maxBytes > 0 && bytes >= maxBytes):
		return flushFull
	case p == FlushNatural && flushing == 0:
		return flushIdle
	}
	return keepOpen
}

// armLinger reports whether a batch opened now, in a group with flushing
// flushes in flight, needs a linger timer: not when the item that opens it
// flushes it at once.
func armLinger(p FlushPolicy, flushing int) bool { return p != FlushNatural || flushing > 0 }

// flushOnReturn reports whether, when a flush of a group returns, the group's
// open batch of live items is flushed at once (it gathered while the flush was
// in flight).
func flushOnReturn(p FlushPolicy, live int) bool { return p == FlushNatural && live > 0 }
