package failover_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestKnobErrorNamesTheKnob: a knob outside [0, 100] was refused as "knob
// 150 outside [0, 100]", which did not say whether Ring, Mega or Global was
// wrong. Found by a review.
func TestKnobErrorNamesTheKnob(t *testing.T) {
	for _, tt := range []struct {
		give failover.Knobs
		want string
	}{
		{failover.Knobs{Ring: 150, Mega: 50, Global: 50}, `Knobs.Ring 150`},
		{failover.Knobs{Ring: 50, Mega: -1, Global: 50}, `Knobs.Mega -1`},
		{failover.Knobs{Ring: 50, Mega: 50, Global: math.NaN()}, `Knobs.Global NaN`},
	} {
		cfg := failover.Config{Tier: "t", Regions: []failover.Region{{Name: "a", Knobs: tt.give}, {Name: "b"}}}
		_, err := failover.New(cfg)
		require.ErrorIs(t, err, failover.ErrInvalidConfig)
		assert.EqualError(t, err, `failover: tier "t": region "a": `+tt.want+` outside [0, 100]: invalid config`)
	}
}
