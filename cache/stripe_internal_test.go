package cache

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStripeResaltOnContention: a goroutine whose stripe stays locked by
// another (two long-lived goroutines that picked the same stripe) gets a
// different stripe after a bounded number of failed tries, instead of
// sharing that stripe for as long as both run.
func TestStripeResaltOnContention(t *testing.T) {
	c, err := New[uint64, uint64](Config[uint64]{Capacity: 1024})
	require.NoError(t, err)
	const addr = uintptr(0x40a1b2c8) // a stack address, as stripeOf passes (32 bits: also a 386 one)
	st := c.stripeAt(addr)
	require.Same(t, st, c.stripeAt(addr), "the same goroutine keeps its stripe")
	st.mu.Lock() // the other goroutine of the collision, inside its try
	defer st.mu.Unlock()
	n := &node[uint64]{}

	for range resaltFails - 1 {
		c.recordHit(st, n, true)
	}
	assert.Zero(t, c.stripeSalt.Load(), "fewer than resaltFails failures keep the salt")
	c.recordHit(st, n, true)
	assert.NotZero(t, c.stripeSalt.Load(), "resaltFails failures change it")

	// Each change deals every goroutine again; within a few the contended
	// address lands elsewhere (the salts and the address are fixed, so this
	// is deterministic).
	changes := 1
	for ; c.stripeAt(addr) == st && changes < 32; changes++ {
		for range resaltFails {
			c.recordHit(st, n, true)
		}
	}
	assert.NotSame(t, st, c.stripeAt(addr), "still on the contended stripe after %d salts", changes)
	assert.EqualValues(t, changes*resaltFails, st.hits.Load(), "every hit of a failed try is still counted")
}

// TestStripeSaltUncontended: tries that find the stripe free never change
// the salt, so a single goroutine's stripe, and its replay into the policy,
// stay exactly as they were.
func TestStripeSaltUncontended(t *testing.T) {
	c, err := New[uint64, uint64](Config[uint64]{Capacity: 64})
	require.NoError(t, err)
	for k := range uint64(4 * resaltFails) {
		c.Set(k%100, k)
		_, _ = c.TryGet(k % 100)
	}
	assert.Zero(t, c.stripeSalt.Load())
	for i := range c.stripes {
		assert.Zero(t, c.stripes[i].fails.Load(), "stripe %d", i)
	}
}
