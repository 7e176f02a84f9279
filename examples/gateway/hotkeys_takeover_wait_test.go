package main

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHotKeysTimeoutAfterTakeover: a key's wait that runs out of time after
// another key took its slot over does not mark the new key's wait as run out.
// The flag was set whoever held the slot by then: the old key's wait, posted
// before the takeover, made the new key's first fetch that would wait go at
// once, as TestHotKeysTakeoverForgetsTimeout's did when it ran out before.
func TestHotKeysTimeoutAfterTakeover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const linger = time.Millisecond
		k := newHotKeys(linger)
		a, b := uint64(7), uint64(7+hotSlots) // same slot
		const many = 16 * hotGets             // a expects more than b ever brings
		for range many {
			k.arrived(a, nil)
		}
		k.done(a)
		k.arrived(a, nil)
		went := make(chan struct{})
		go func() { k.wait(a); close(went) }() // a's readers never come back
		synctest.Wait()
		require.NotNil(t, k.slots[a%hotSlots].wake.Load(), "a's wait is posted")
		// b takes the slot over while a waits, and becomes hot.
		for range hotGets + 2 {
			k.arrived(b, nil)
		}
		k.done(b)
		time.Sleep(linger) // synctest's clock: a's wait runs out
		<-went
		require.Equal(t, int64(1), k.timedOut.Load())
		k.arrived(b, nil)
		need, _ := k.plan(b)
		assert.Equal(t, needFor(hotGets+2), need, "b's first fetch waits: a's timeout is not b's")
	})
}
