package main

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
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
