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

// TestSolveDensityOutsideSearchRange: the solver searched densities 0.001 to
// 1e7 only and printed "is out of reach for this fleet at any density" for a
// target outside them, though a density below 0.001 (a fleet of few clients,
// whose gateway total is mostly backend connections) or above 1e7 (a tier of
// a billion proxies, far from saturating) gives it. The reduction falls
// monotonically from its bound at density 0+ (direct total over client-side
// connections) to its bound at density infinity, so a target strictly
// between those is reached at some density, and the printed one gives it.
func TestSolveDensityOutsideSearchRange(t *testing.T) {
	few := articleFleet()
	few.Clients = 10_000 // 0.001 gives 15,860x; the bound at 0+ is 23,790x
	huge := articleFleet()
	huge.Regions, huge.Proxies = 1, 1_000_000_000 // 1e7 gives 0.0096x
	for _, tc := range []struct {
		name   string
		f      Fleet
		target float64
	}{{"below 0.001", few, 20_000}, {"above 1e7", huge, 0.005}} {
		var out bytes.Buffer
		require.NoError(t, report(&out, tc.f, tc.target))
		prefix := fmt.Sprintf("=> %gx at a density of ", tc.target)
		_, rest, found := strings.Cut(out.String(), prefix)
		require.True(t, found, "%s: target %g not solved:\n%s", tc.name, tc.target, out.String())
		printed, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
		require.NoError(t, err)
		f := tc.f
		f.ShardDensity = printed
		require.NoError(t, f.validate(), "%s: printed density %v", tc.name, printed)
		assert.InEpsilon(t, tc.target, reduction(f), 0.01, "%s: printed density %v", tc.name, printed)
	}

	// Past the bound at density 0+, no density gives it.
	var out bytes.Buffer
	require.NoError(t, report(&out, few, 30_000))
	assert.Contains(t, out.String(), "=> 30000x is out of reach for this fleet at any density")
}
