package main

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"
)

// hotKeys lets the fetch of a key that many clients read at once wait for
// part of the readers it expects (hot-key linger). Coalescing shares a fetch
// among the GETs that arrive while it is in flight; at pipeline 1 a fetch is
// short, so a hot key still costs a backend command for every few readers.
//
// Every coalesced GET counts itself against its key as it arrives (a lossy
// table of hotSlots slots), and every fetch of the key, when it returns, ends
// a cycle. A key expects as many readers as came in its last two cycles: the
// GETs of the cycle before, and those of the last one whose connection had
// not read the key in that cycle or in its own (the others are counted
// already); at least the GETs of the last cycle. A fetch of a key that
// expects at least hotGets waits until its own cycle has counted a share of
// that (hotShareNum / hotShareDen, at least hotGets), or for the linger at
// most, before it goes: the GET that completes the count wakes it. The readers that arrive after it went join it
// while it is in flight, as without the wait, so they are counted in its
// cycle too. With clients that send their next read when they have the
// answer (closed loop: redis-benchmark, most services), the readers of one
// fetch come back for the next, so the wait ends as soon as the first part of
// them has asked, and the linger's timer runs out only when they do not come
// back. Waiting for all of them instead cost 11% of the throughput at 16
// clients, where the last readers' round trips were no longer overlapped with
// the fetch; waiting for half of them left 50 clients at 0.046-0.052 backend
// commands per GET, against 0.040-0.049 for three quarters (HISTORY.md, "A hot
// key's fetch waits"). A cold key never waits.
//
// Why two cycles and the connections (since the thirty-third session): a
// cycle counts the share it waited for plus the d readers that arrive while
// its fetch is in flight, so expecting the last cycle's count, as the gateway
// did before, settles at d / (1 - share) readers per fetch, four times d,
// whatever the number of clients: 37-40 of 50 clients on that session's host
// (0.026 backend commands per GET), about 15 in the thirty-second session's
// runs with one P (0.06-0.07). The readers a fetch leaves out come in the
// next cycle, so two cycles hold every reader of a closed loop whose readers
// split into two groups, and a reader counted in both (its connection read
// the key in the cycle before) is counted once. A GET that names no
// connection (a pipelined run's) counts as one read before, which leaves the
// expectation at the larger count of the last two cycles for them.
//
// A wait that ran out of time makes the next fetch of the key that would wait
// go at once, so that a key whose readers do not come back in step
// (independent arrivals, or more readers than the gateway serves within the
// linger) waits the linger on at most every other such fetch.
//
// A GET that joins during the wait gets a value fetched after it arrived (the
// fetch has not left yet), so waiting weakens nothing that coalescing allows.
//
// All methods are safe for concurrent use.
type hotKeys struct {
	seed   maphash.Seed
	linger atomic.Int64 // ns, the longest wait; 0: off
	slots  [hotSlots]hotSlot
	// outcomes of the waits: woken by the GET that completed the count (or by
	// the linger's switch-off), or at the end of the linger; every wait that
	// blocked counts in exactly one (one whose count completed, or whose
	// linger was turned off, before it was posted counts in neither)
	woken, timedOut atomic.Int64
}

type hotSlot struct {
	// mu orders the changes of the slot's key (a takeover) with the writes
	// that depend on which key holds it: the end of a cycle (done) and the
	// flag of a wait that ran out. Each of those read the key and then wrote
	// the counts, and a takeover between the two gave the new key the old
	// one's expectation. The GETs of the slot's own key take no lock.
	mu     sync.Mutex
	h      atomic.Uint64 // the key's hash, 0: empty; written under mu
	gets   atomic.Uint32 // GETs of the key in this cycle
	expect atomic.Uint32 // the readers the key had in its last two cycles (at least the GETs of the last)
	last   atomic.Uint32 // GETs of the key in the last cycle
	seen   atomic.Uint32 // GETs of this cycle from a connection that read the key in it or the cycle before, or from none
	cycle  atomic.Uint32 // cycles ended in this slot
	late   atomic.Bool   // the last wait ran out of time: the next fetch does not wait
	wake   atomic.Pointer[hotWait]
}

// hotReader is what a connection remembers of its last GETs of coalesced
// keys: of each of the last hotReaderKeys keys it read, the key's hash and
// the cycle of its slot its last GET of the key came in, the most recent
// first. A connection that reads other keys between its GETs of a hot key
// (two hot keys in turn, or a hot key and the keys it leads to) is still
// known to come back: remembering its last key only, it was counted as a new
// reader in every cycle, the key expected twice the readers it had, and
// every wait that could ran out of the linger. Only the connection's own
// goroutine uses it.
type hotReader struct {
	keys [hotReaderKeys]hotRead
}

type hotRead struct {
	h     uint64
	cycle uint32
}

// hotReaderKeys is how many keys a connection's hotReader remembers.
const hotReaderKeys = 4

// read records a GET of the key with hash h in cycle c of its slot, and
// reports whether the connection's last GET of the key came in c or the
// cycle before.
func (rd *hotReader) read(h uint64, c uint32) (recent bool) {
	i := 0
	for i < len(rd.keys)-1 && rd.keys[i].h != h {
		i++
	}
	recent = rd.keys[i].h == h && c-rd.keys[i].cycle <= 1
	copy(rd.keys[1:i+1], rd.keys[:i]) // the last is dropped if h is new
	rd.keys[0] = hotRead{h: h, cycle: c}
	return recent
}

// hotWait is a fetch waiting for its cycle's GETs.
type hotWait struct {
	need uint32
	ch   chan struct{} // closed by the GET that brings the count to need
}

const (
	hotSlots = 256
	// defaultHotLinger is the longest wait by default; maxHotLinger the
	// longest allowed. The readers of a cycle come back at the rate the
	// gateway serves them, so the time they take depends on the host: at
	// 500 us, a fifth of the waits ran out on a host serving 30,000-38,000
	// GETs a second to 50 clients, whose hot key then took 0.047-0.059
	// backend commands per GET; at 1 ms, 0.032-0.044 at the same ops/s
	// (HISTORY.md, "Twenty-sixth session").
	defaultHotLinger = time.Millisecond
	maxHotLinger     = 5 * time.Millisecond
	// hotGets is how many GETs of a key a cycle must have had for the next
	// fetch to wait (fewer readers share little: with 4 clients, waiting for
	// them cost 11-23% of the throughput), and the fewest it waits for.
	hotGets = 8
	// hotShareNum / hotShareDen is the share of the last cycle's GETs that a
	// fetch waits for.
	hotShareNum, hotShareDen = 3, 4
)

func newHotKeys(linger time.Duration) *hotKeys {
	k := &hotKeys{seed: maphash.MakeSeed()}
	k.linger.Store(int64(max(linger, 0)))
	return k
}

// setLinger changes the longest wait (the knob). Turned off, it also ends
// the waits in progress: the GETs that arrive with it off are not counted
// (Gateway.getCoalesced), so only their linger would end them, and every
// reader that joined one would stall for the whole of it. A wait posted
// after the walk sees the linger off and goes (wait).
func (k *hotKeys) setLinger(d time.Duration) {
	k.linger.Store(int64(max(d, 0)))
	if d > 0 {
		return
	}
	for i := range k.slots {
		s := &k.slots[i]
		if w := s.wake.Load(); w != nil && s.wake.CompareAndSwap(w, nil) {
			close(w.ch)
		}
	}
}

// hash is the key's hash, never 0 (a GET not counted). The top bit keeps it
// so: the low bits pick the slot, and setting the lowest one left every even
// slot unused.
func (k *hotKeys) hash(key string) uint64 { return maphash.String(k.seed, key) | 1<<63 }

// arrived counts a GET of the key with hash h from the connection whose
// reader is rd (nil: none named), before it fetches or joins, and wakes the
// key's waiting fetch if the count is complete.
func (k *hotKeys) arrived(h uint64, rd *hotReader) {
	s := &k.slots[h%hotSlots]
	if s.h.Load() != h && s.takeOver(h, rd) {
		return
	}
	if rd == nil || rd.read(h, s.cycle.Load()) {
		s.seen.Add(1)
	}
	n := s.gets.Add(1)
	if w := s.wake.Load(); w != nil && n >= w.need && s.wake.CompareAndSwap(w, nil) {
		close(w.ch)
	}
}

// takeOver makes the slot the key's with hash h, its GET counted, and
// reports whether it did: false if another GET of the key took it first.
func (s *hotSlot) takeOver(h uint64, rd *hotReader) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.h.Load() == h {
		return false
	}
	s.h.Store(h) // the slot's key changes: start afresh
	s.expect.Store(0)
	s.last.Store(0)
	s.seen.Store(0)
	s.late.Store(false) // the old key's wait that ran out
	s.gets.Store(1)
	if rd != nil {
		rd.read(h, s.cycle.Load())
	}
	return true
}

// plan returns how many GETs of its cycle a fetch of the key with hash h,
// starting now, should wait for (0: none) and the longest wait.
func (k *hotKeys) plan(h uint64) (need uint32, linger time.Duration) {
	linger = time.Duration(k.linger.Load())
	if linger == 0 || h == 0 { // off, or turned on after this GET arrived uncounted
		return 0, 0
	}
	s := &k.slots[h%hotSlots]
	if s.h.Load() != h {
		return 0, 0
	}
	e := s.expect.Load()
	if e < hotGets {
		return 0, 0 // a cold key: read only, no write to the slot's line
	}
	need = max(e*hotShareNum/hotShareDen, hotGets)
	if s.gets.Load() >= need {
		return 0, 0
	}
	// Only a fetch that would wait consumes the flag of a wait that ran out.
	if s.late.Load() && s.late.CompareAndSwap(true, false) {
		return 0, 0
	}
	return need, linger
}

// wait blocks the fetch of the key with hash h, starting now, until its cycle
// has counted the GETs that plan asks for or the linger has passed.
//
// NOTE: it takes no context, and nothing but the count or the linger ends
// it: the fetch is shared, and runs on the detached context of the GET that
// started it (Gateway.one), whose end must not cut the others' fetch short
// (the gateway's GETs carry no context that ends anyway: session.call). It
// is bounded by the linger read when it starts, at most maxHotLinger (5 ms):
// a linger lowered meanwhile bounds only the waits that start after the
// change; one turned off ends the waits in progress too (setLinger).
func (k *hotKeys) wait(h uint64) {
	need, linger := k.plan(h)
	if need == 0 {
		return
	}
	s := &k.slots[h%hotSlots]
	w := &hotWait{need: need, ch: make(chan struct{})}
	if !s.wake.CompareAndSwap(nil, w) {
		return // another key of the slot waits
	}
	if (s.gets.Load() >= need || k.linger.Load() == 0) && s.wake.CompareAndSwap(w, nil) {
		return // the count completed, or the linger was turned off, before the wait was posted
	}
	t := time.NewTimer(linger)
	select {
	case <-w.ch:
		k.woken.Add(1)
	case <-t.C:
		if s.wake.CompareAndSwap(w, nil) {
			k.timedOut.Add(1)
			s.mu.Lock()
			if s.h.Load() == h { // not a key that took the slot over meanwhile
				s.late.Store(true)
			}
			s.mu.Unlock()
		} else { // woken at the last moment
			k.woken.Add(1)
		}
	}
	t.Stop()
}

// done ends the cycle of the key with hash h: its fetch returned. Two fetches
// of one key can overlap (a write drops the key's fetch in flight and the
// next GET starts another), and a GET can count between the swaps: the
// expectation is a heuristic, and a race moves it by a reader or a cycle.
func (k *hotKeys) done(h uint64) {
	if h == 0 {
		return
	}
	s := &k.slots[h%hotSlots]
	if s.h.Load() != h { // another key's slot: no lock
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.h.Load() == h { // again under mu: no takeover before the counts are written
		n, seen := s.gets.Swap(0), s.seen.Swap(0)
		// the GETs of the cycle before, and this one's from connections
		// that did not read the key in it (or in this one); at least this
		// one's
		s.expect.Store(max(n, s.last.Swap(n)+n-min(seen, n)))
		s.cycle.Add(1)
	}
}
