package main

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestHotKeysTakeoverRacesDone: a cold key that takes over the slot of a hot
// key while the hot key's fetch returns starts afresh. done read the slot's
// key and then stored the expectation computed from the old key's counts:
// when the takeover came between the two, the new key (one GET so far)
// inherited the hot key's expectation, and its first fetch waited the
// linger for readers it never had (or its count of the last cycle, and
// expected them one cycle later). Run under -race with the two calls
// started together, many times; the invariant holds after each.
func TestHotKeysTakeoverRacesDone(t *testing.T) {
	a, b := uint64(7), uint64(7+hotSlots) // same slot
	const rounds = 20000
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; i < rounds && time.Now().Before(deadline); i++ {
		k := newHotKeys(defaultHotLinger)
		for range 16 * hotGets { // a is hot
			k.arrived(a, nil)
		}
		k.done(a)
		k.arrived(a, nil) // a's next fetch is in flight
		var start, wg sync.WaitGroup
		start.Add(1)
		wg.Add(2)
		go func() { defer wg.Done(); start.Wait(); k.done(a) }()
		go func() { defer wg.Done(); start.Wait(); runtime.Gosched(); k.arrived(b, nil) }()
		start.Done()
		wg.Wait()
		s := &k.slots[b%hotSlots]
		require.Equal(t, b, s.h.Load())
		// b's one GET, and nothing of a's counts.
		require.Equal(t, [4]uint32{1, 0, 0, 0}, [4]uint32{s.gets.Load(), s.expect.Load(), s.last.Load(), s.seen.Load()},
			"round %d: gets, expect, last, seen", i)
		need, _ := k.plan(b)
		require.Zero(t, need, "round %d: b's first fetch does not wait", i)
	}
}
