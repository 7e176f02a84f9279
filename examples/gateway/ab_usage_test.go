package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestABUsage: ab.sh with fewer than four arguments stopped on bash's
// "unbound variable", and with the four but no binary it printed its
// table's header alone and exited 0, a run that measured nothing passing
// for whatever ran it. Both must print a usage line and exit 2, before
// starting anything (memkv: nothing to start in any case).
func TestABUsage(t *testing.T) {
	for name, args := range map[string][]string{
		"no binary":     {"memkv", "100", "2", "1"},
		"two arguments": {"memkv", "100"},
		"none":          nil,
	} {
		t.Run(name, func(t *testing.T) {
			out := scriptRefuses(t, nil, "ab.sh", args...)
			assert.Contains(t, out, "usage: ")
			assert.NotContains(t, out, "ops/s", "the table's header")
		})
	}
}
