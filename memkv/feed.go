package memkv

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"time"
)

// EventKind tells a write from a checkpoint.
type EventKind int

// Event kinds, starting at 1.
const (
	// EventWrite: Key was set to Value (or deleted) at Version.
	EventWrite EventKind = iota + 1
	// EventCheckpoint: every write with a version <= Version has been
	// delivered before this event. Checkpoints with no write between them
	// reach a subscriber as the newest alone if it had not taken the older
	// ones yet.
	EventCheckpoint
)

// String returns "write" or "checkpoint", or "EventKind(n)" for any other n,
// so that a printed Event names its kind.
func (k EventKind) String() string {
	switch k {
	case EventWrite:
		return "write"
	case EventCheckpoint:
		return "checkpoint"
	}
	return "EventKind(" + strconv.Itoa(int(k)) + ")"
}

// Event is one change-feed record. Key and Value are shared with the store and
// must not be modified; their capacity equals their length, so appending to
// one copies it.
type Event struct {
	Kind    EventKind // a write or a checkpoint
	Version uint64    // the commit version of the write, or the checkpoint's
	Key     []byte    // the key written (nil for a checkpoint)
	Value   []byte    // the value written (nil for a deletion or checkpoint)
	Deleted bool      // the write deleted Key
	// At is a checkpoint's cut: the time (time.Now, with its monotonic
	// reading) at which every write up to Version was visible; zero for a
	// write. A consumer that bounds its staleness counts from At, not from
	// when it reads the event, so that its lag behind the feed does not
	// stretch the bound (cache.Event.Cut).
	At time.Time
}

// Subscription is an ordered stream of change-feed events: writes in commit
// version order, interleaved with checkpoints. Events are buffered per
// subscriber up to Config.FeedBuffer (the buffer grows and shrinks with the
// events it holds, so an idle subscriber costs little whatever the bound,
// also after a burst); the commit path never blocks on a slow subscriber.
// Overflow policy: a subscriber whose buffer is full is cut off by the next
// write; it still receives every event buffered before the cut, then
// ErrOverflow. Checkpoints are coalesced: one pushed while the last event
// buffered is a checkpoint replaces it (only the newest watermark matters),
// and one pushed into a full buffer takes one slot past the bound, so
// checkpoints alone never fill the buffer; a subscriber that reads nothing
// is cut off only by writes. The cut detaches it from the store: commits no
// longer visit it, Stats.Subscribers no longer counts it, and it frees its
// buffer once drained, whether or not its owner closes it. Close it when done
// (Close after a cut-off makes every later call return ErrClosed). Safe for
// concurrent use.
type Subscription struct {
	// Start is the version the subscription starts after: it delivers every
	// write with a version > Start.
	Start uint64

	s      *Store
	notify chan struct{} // capacity 1: "buffer may be non-empty"
	done   chan struct{} // closed by Close: wakes every pending Next

	mu       sync.Mutex // protects the fields below
	buf      []Event    // ring, grown by doubling up to Config.FeedBuffer
	head, n  int
	peak     int // the most events held since the subscriber last caught up
	overflow bool
	closed   bool
}

// Subscribe starts a change feed at the current version.
func (s *Store) Subscribe() *Subscription {
	s.mu.Lock()
	defer s.mu.Unlock()
	sub := &Subscription{
		Start:  s.visible.Load(),
		s:      s,
		notify: make(chan struct{}, 1),
		done:   make(chan struct{}),
	}
	s.subs = append(s.subs, sub)
	s.st.subscribers.Add(1)
	return sub
}

// Checkpoint emits a checkpoint event at the current version to every
// subscriber and returns the version.
func (s *Store) Checkpoint() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.visible.Load()
	s.checkpointLocked(v)
	return v
}

func (s *Store) checkpointLocked(v uint64) {
	s.sinceCkpt = 0
	if len(s.subs) == 0 {
		return
	}
	ev := Event{Kind: EventCheckpoint, Version: v, At: time.Now()}
	limit := s.cfg.Load().FeedBuffer
	for _, sub := range s.subs {
		sub.push(ev, limit, &s.st)
	}
}

// publishLocked delivers the events of commit v and a checkpoint when due.
// Caller holds s.mu, which orders deliveries.
func (s *Store) publishLocked(cfg *Config, evs []Event, v uint64) {
	if len(s.subs) == 0 {
		return
	}
	// A subscriber cut off here gets nothing more: it leaves the list, so
	// that commits stop visiting it (one lock per event each, for good) and
	// Stats.Subscribers stops counting it, whether or not its owner closes
	// it.
	kept := s.subs[:0]
	for _, sub := range s.subs {
		cut := false
		for _, e := range evs {
			if cut = sub.push(e, cfg.FeedBuffer, &s.st); cut {
				break
			}
		}
		if cut {
			s.st.subscribers.Add(-1)
			continue
		}
		kept = append(kept, sub)
	}
	clear(s.subs[len(kept):])
	s.subs = kept
	s.st.feedEvents.Add(uint64(len(evs)))
	s.sinceCkpt++
	if s.sinceCkpt >= cfg.CheckpointEvery {
		s.checkpointLocked(v)
	}
}

// push buffers e, or cuts sub off if e is a write and sub holds limit
// events: the Config.FeedBuffer in force, so that SetConfig reaches live
// subscribers too (each kept the bound in force at Subscribe, and raising it
// to stop the cut-offs, or lowering it to bound memory, changed none of
// them). It reports whether this push cut sub off.
func (sub *Subscription) push(e Event, limit int, st *counters) (cut bool) {
	sub.mu.Lock()
	if sub.closed || sub.overflow {
		sub.mu.Unlock()
		return false
	}
	if e.Kind == EventCheckpoint && sub.n > 0 {
		// Checkpoints with no write between them say nothing but the
		// newest: it takes the slot of the one before, whose promise it
		// includes (its version and cut are no older). Appended, they filled
		// an idle subscriber's buffer from a ticker (Store.Checkpoint) or
		// from commits that write nothing, and cut it off with ErrOverflow
		// although no data changed.
		if last := &sub.buf[(sub.head+sub.n-1)%len(sub.buf)]; last.Kind == EventCheckpoint {
			*last = e
			sub.mu.Unlock()
			sub.signal()
			return false
		}
	}
	bound := limit
	if e.Kind == EventCheckpoint {
		// Only writes cut a subscriber off: one holding limit writes (or
		// more, after SetConfig lowered the limit) is not behind on data
		// yet, and was cut off by a ticker's checkpoint. The checkpoint
		// takes one slot past the bound; the next one replaces it (above),
		// the next write cuts the subscriber off.
		bound = max(limit, sub.n+1)
	}
	if sub.n < bound && sub.n == len(sub.buf) {
		sub.resizeLocked(min(max(2*len(sub.buf), minRing), bound))
	}
	if sub.n >= bound {
		sub.overflow, cut = true, true
		st.feedOverflows.Add(1)
	} else {
		sub.buf[(sub.head+sub.n)%len(sub.buf)] = e
		sub.n++
		sub.peak = max(sub.peak, sub.n)
	}
	sub.mu.Unlock()
	sub.signal()
	return cut
}

// resizeLocked moves the events into a ring of size slots (>= sub.n),
// keeping their order. push doubles the ring when it is full, up to the
// limit: allocating the whole ring at Subscribe cost every subscriber
// FeedBuffer events (384 KiB at the default) before it held any, and a
// FeedBuffer too large to allocate made Subscribe panic. When the subscriber
// catches up (TryNext takes the last event held), TryNext cuts an empty ring
// to twice the most it held since it last caught up, if that was a quarter
// of it or less: a subscriber that caught up after a burst does not keep the
// burst's ring (96 MiB at FeedBuffer 1<<20) for good, and one that drains
// bursts of a steady size keeps the ring they need (cutting as it drained, at
// a quarter, reallocated the ring on every burst: 2.5x the bytes per Put of
// BenchmarkPutSubscribed/drain=256).
func (sub *Subscription) resizeLocked(size int) {
	buf := make([]Event, size)
	for i := range sub.n {
		buf[i] = sub.buf[(sub.head+i)%len(sub.buf)]
	}
	sub.buf, sub.head = buf, 0
}

// minRing is the smallest ring a subscription allocates, and the least
// size at which TryNext shrinks one that its subscriber has drained.
const minRing = 16

// signal leaves the wake-up token for a waiting Next, unless it is there
// already.
func (sub *Subscription) signal() {
	select {
	case sub.notify <- struct{}{}:
	default:
	}
}

// TryNext returns the next event without blocking; ok is false when none is
// buffered. After a cut-off it returns ErrOverflow once the buffered events
// are taken (so does every pending and later Next), after Close ErrClosed.
func (sub *Subscription) TryNext() (e Event, ok bool, err error) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if sub.closed {
		return Event{}, false, ErrClosed
	}
	if sub.n > 0 {
		e = sub.buf[sub.head]
		sub.buf[sub.head] = Event{}
		sub.head = (sub.head + 1) % len(sub.buf)
		sub.n--
		if sub.n == 0 {
			if sub.overflow {
				sub.buf = nil // cut off and drained: it never holds an event again
			} else if len(sub.buf) > minRing && sub.peak <= len(sub.buf)/4 {
				sub.resizeLocked(max(2*sub.peak, minRing))
			}
			sub.peak = 0
		}
		if sub.n > 0 || sub.overflow {
			// The token holds one signal for many pushes: pass it on, so
			// that another waiting Next takes what is left.
			sub.signal()
		}
		return e, true, nil
	}
	if sub.overflow {
		// The cut-off is final and every pending Next must learn it: pass
		// the token on, as for an event, or a third waiter sleeps forever.
		sub.signal()
		return Event{}, false, ErrOverflow
	}
	return Event{}, false, nil
}

// Next returns the next event, waiting for one until ctx is done.
func (sub *Subscription) Next(ctx context.Context) (Event, error) {
	for {
		e, ok, err := sub.TryNext()
		if ok || err != nil {
			return e, err
		}
		select {
		case <-sub.notify:
		case <-sub.done:
		case <-ctx.Done():
			return Event{}, ctx.Err()
		}
	}
}

// Close ends the subscription; pending and later Next calls return
// ErrClosed. Close is idempotent.
func (sub *Subscription) Close() {
	s := sub.s
	s.mu.Lock()
	for i, x := range s.subs {
		if x == sub {
			s.subs = slices.Delete(s.subs, i, i+1) // zeroes the freed slot, as the cut-off's detach does
			s.st.subscribers.Add(-1)
			break
		}
	}
	s.mu.Unlock()
	sub.mu.Lock()
	if !sub.closed {
		sub.closed = true
		sub.buf = nil
		close(sub.done)
	}
	sub.mu.Unlock()
}
