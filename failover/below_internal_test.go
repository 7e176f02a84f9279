package failover

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestBelowReadsLess: below prints a < b so that the printed figures compare
// as the figures do, with two decimals when they suffice.
func TestBelowReadsLess(t *testing.T) {
	for _, c := range []struct{ a, b float64 }{
		{0.5, 0.8},
		{0.6799, 0.68},
		{0.67999999, 0.68},
		{math.Nextafter(0.68, 0), 0.68},
		{math.Nextafter(2, 0), 2},
		{0, math.SmallestNonzeroFloat64},
		{-1e-300, 0},
	} {
		x, y := below(c.a, c.b)
		px, err := strconv.ParseFloat(x, 64)
		assert.NoError(t, err)
		py, err := strconv.ParseFloat(y, 64)
		assert.NoError(t, err)
		assert.Less(t, px, py, "%v < %v printed %s < %s", c.a, c.b, x, y)
	}
	x, y := below(0.5, 0.8)
	assert.Equal(t, [2]string{"0.50", "0.80"}, [2]string{x, y})
	x, y = below(0.6799, 0.68)
	assert.Equal(t, [2]string{"0.6799", "0.6800"}, [2]string{x, y})
}
