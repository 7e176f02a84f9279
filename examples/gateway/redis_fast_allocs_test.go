package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNameRefusedAllocs holds nameRefused of a nil error, which dropNamed
// runs on every batch a shard answers, to no allocation.
func TestNameRefusedAllocs(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		if nameRefused(nil) {
			t.Fatal("a nil error refused CLIENT SETNAME")
		}
	})
	assert.Zero(t, allocs)
}
