package main

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHotKeysUseEverySlot: keys spread over all hotSlots slots of the table.
// The hash's low bit, set to keep it nonzero, made every slot index odd: the
// table had half its slots, and two hot keys shared one (each GET of one
// resetting the other's counts, so neither waited) twice as often.
func TestHotKeysUseEverySlot(t *testing.T) {
	k := newHotKeys(defaultHotLinger)
	used := map[uint64]bool{}
	for i := range 16 * hotSlots {
		h := k.hash("key:" + strconv.Itoa(i))
		assert.NotZero(t, h, "0 means a GET not counted")
		used[h%hotSlots] = true
	}
	// 4,096 keys leave a slot empty with a chance of e^-16 each.
	assert.Greater(t, len(used), hotSlots*7/8, "slots used of %d", hotSlots)
}

// TestHotKeysTakeoverForgetsTimeout: a key that takes over a slot starts
// afresh, including the flag of a wait that ran out of time. The flag was
// kept: the old key's timed-out wait made the new key's first fetch that
// would wait go at once.
func TestHotKeysTakeoverForgetsTimeout(t *testing.T) {
	k := newHotKeys(time.Microsecond)
	a, b := uint64(7), uint64(7+hotSlots) // same slot
	for range hotGets + 2 {
		k.arrived(a, nil)
	}
	k.done(a)
	k.arrived(a, nil)
	k.wait(a) // a's readers never come: the wait runs out
	require.Equal(t, int64(1), k.timedOut.Load())
	// b takes the slot over (a's fetch still in flight) and becomes hot.
	for range hotGets + 2 {
		k.arrived(b, nil)
	}
	k.done(b)
	k.arrived(b, nil)
	need, _ := k.plan(b)
	assert.Equal(t, needFor(hotGets+2), need, "b's first fetch waits: a's timeout is not b's")
}
