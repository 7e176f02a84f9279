package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCompareRefusesNonNumericCache: compare.sh tested CACHE with -gt, which
// on a value that is not a number (CACHE=50k) only warns "integer expression
// expected" and is false: the run went on without the gw+cache rows it was
// asked for. It must stop, before building or starting anything, as ROWS does.
func TestCompareRefusesNonNumericCache(t *testing.T) {
	for _, cache := range []string{"50k", "-1", " ", "5e4"} {
		out := scriptRefuses(t, []string{"CACHE=" + cache, "PIPES=1", "N=100"}, "compare.sh")
		assert.Contains(t, out, "CACHE", "CACHE=%q", cache)
	}
}
