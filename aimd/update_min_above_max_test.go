package aimd_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/aimd"
)

// TestUpdateMinAboveMax: Params with Min above Max (which a Config refuses,
// but the pure Update and Recover take from any caller) have no limit within
// [Min, Max]. The clamp gave Min to a result below Min and Max to any other,
// so the answer jumped between the two with the input: an increase from 9
// gave 5 and one from 7 gave 10, a cut from 12 gave 10. Update and Recover now
// give Max, whatever the limit and the load, as documented.
func TestUpdateMinAboveMax(t *testing.T) {
	p := aimd.Params{Target: 0.9, Increase: 1, Gain: 0.5, Decrease: 0.7, Min: 10, Max: 5}
	for _, limit := range []float64{0, 4, 5, 7, 9, 10, 12, 1e9, math.NaN(), math.Inf(1)} {
		for _, load := range []float64{0, 0.5, 0.9, 2, math.Inf(1), math.NaN(), -1} {
			next := aimd.Update(limit, load, p)
			assert.Equal(t, 5.0, next, "Update(%v, %v)", limit, load)
			rec, _ := aimd.Recover(limit, next, load, aimd.RecoverState{Mark: 8}, p)
			assert.Equal(t, 5.0, rec, "Recover(%v, %v, %v)", limit, next, load)
		}
	}
}
