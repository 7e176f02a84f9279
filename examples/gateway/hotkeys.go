package main

import (
	"hash/maphash"
	"sync/atomic"
	"time"
)

// hotKeys lets the fetch of a key that many clients read at once wait a
// moment for more of them (hot-key linger). Coalescing shares a fetch among
// the GETs that arrive while it is in flight; at pipeline 1 a fetch is short,
// so a hot key still costs a backend command for every few readers. Here
// every coalesced GET counts itself against its key as it arrives, and a fetch
// of a key that at least hotGets GETs asked for since its previous fetch began
// waits the linger before it goes, so that the readers arriving meanwhile
// join it. (Counting on arrival, not once a GET has its answer, keeps the
// count whole: the readers of one fetch wake one after the other, and the
// first of them may already start the next fetch.)
//
// A GET that joins during the wait gets a value fetched after it arrived (the
// fetch has not left yet), so waiting weakens nothing that coalescing allows;
// it costs the first reader of a hot key the linger. A cold key never waits:
// it has one GET per fetch.
//
// It is off by default. The wait is paid in latency by every reader of the
// fetch, and whether fewer backend commands buy that back depends on the
// load: with redis-benchmark on 2 cores (README, "a hot key's fetch waits"),
// 50 clients at pipeline 1 lost little throughput (median 0.94x) and halved
// the backend commands, but 16 clients lost 43% of their throughput and 4
// clients 84%, where an idle runtime's timers round a 200 us sleep up to
// about a millisecond.
//
// The table is lossy: hotSlots slots by key hash, a key taking the slot of
// another on its first GET. All methods are safe for concurrent use.
type hotKeys struct {
	seed   maphash.Seed
	linger atomic.Int64 // ns; 0: off
	slots  [hotSlots]hotSlot
}

type hotSlot struct {
	h    atomic.Uint64 // the key's hash, 0: empty
	gets atomic.Uint32 // GETs of the key since its last fetch began
}

const (
	hotSlots     = 256
	maxHotLinger = 5 * time.Millisecond
	// hotGets is how many GETs of a key since its last fetch began make the
	// next fetch wait: enough readers at once that the gateway is busy (its
	// timers then fire on time) and the wait saves backend commands.
	hotGets = 4
)

func newHotKeys(linger time.Duration) *hotKeys {
	k := &hotKeys{seed: maphash.MakeSeed()}
	k.linger.Store(int64(max(linger, 0)))
	return k
}

func (k *hotKeys) hash(key string) uint64 { return maphash.String(k.seed, key) | 1 }

// arrived counts a GET of the key with hash h, before it fetches or joins.
func (k *hotKeys) arrived(h uint64) {
	s := &k.slots[h%hotSlots]
	if s.h.Load() != h {
		s.h.Store(h)
		s.gets.Store(1)
		return
	}
	s.gets.Add(1)
}

// wait returns how long a fetch of the key with hash h, starting now, should
// wait, and restarts the key's count of GETs.
func (k *hotKeys) wait(h uint64) time.Duration {
	linger := k.linger.Load()
	if linger == 0 || h == 0 { // off, or turned on after this GET arrived uncounted
		return 0
	}
	s := &k.slots[h%hotSlots]
	if s.h.Load() != h || s.gets.Swap(0) < hotGets {
		return 0
	}
	return time.Duration(linger)
}
