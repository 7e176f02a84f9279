package main

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSolvedDensityBelowOnePrinted: -target 20000 printed "=> 20000x at a
// density of 0 shard replicas", a density the fleet validation refuses, and
// -target 5000 printed "a density of 1", which gives 3965x: the solved density
// was rounded to a whole number, though the solution lies below one replica
// per host. The printed density, fed back as -density, must give the target.
func TestSolvedDensityBelowOnePrinted(t *testing.T) {
	for _, target := range []float64{19, 5000, 20000} {
		var out bytes.Buffer
		require.NoError(t, report(&out, articleFleet(), target))
		prefix := fmt.Sprintf("=> %gx at a density of ", target)
		_, rest, found := strings.Cut(out.String(), prefix)
		require.True(t, found, "target %g solved:\n%s", target, out.String())
		printed, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
		require.NoError(t, err)
		f := articleFleet()
		f.ShardDensity = printed
		require.NoError(t, f.validate(), "target %g: printed density %v", target, printed)
		assert.InEpsilon(t, target, reduction(f), 0.01, "target %g: printed density %v", target, printed)
	}
}
