package failover_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestMemberlessMechanisms: a hot region whose enabled mechanisms have no member to
// send to (no ring, no mega-region or one of its own, a tier of one region) spills
// nothing, and says so: what it wanted to send is Unplaced, not silently dropped.
func TestMemberlessMechanisms(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(c *failover.Config)
		hot   string
		loads func() []failover.Load
	}{
		{"ring knob, no ring", func(c *failover.Config) {
			c.Regions[0].Knobs = failover.Knobs{Ring: 100}
		}, "a1", nil},
		{"mega knob, no mega", func(c *failover.Config) {
			c.Regions[0].Knobs, c.Regions[0].Mega = failover.Knobs{Mega: 100}, ""
		}, "a1", nil},
		{"mega knob, alone in its mega", func(c *failover.Config) {
			c.Regions[0].Knobs, c.Regions[0].Mega = failover.Knobs{Mega: 100}, "solo"
		}, "a1", nil},
		{"ring and mega knobs, no members", func(c *failover.Config) {
			c.Regions[0].Knobs, c.Regions[0].Mega = failover.Knobs{Ring: 100, Mega: 100}, ""
		}, "a1", nil},
		{"one-region tier", func(c *failover.Config) {
			c.Regions = c.Regions[:1]
		}, "a1", func() []failover.Load { return loads(0.95, nil)[:1] }},
		{"ring members all down", func(c *failover.Config) {
			c.Regions[1].Knobs = failover.Knobs{Ring: 100}
		}, "a2", func() []failover.Load {
			return without(without(loads(0.4, map[string]float64{"a2": 0.95}), "a1"), "a3")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := six()
			tc.edit(&cfg)
			r := mustNew(t, cfg)
			ls := loads(0.4, map[string]float64{tc.hot: 0.95})
			if tc.loads != nil {
				ls = tc.loads()
			}
			tab, err := r.Step(t0, ls)
			require.NoError(t, err)
			d := decision(tab, tc.hot)
			require.Equal(t, failover.Spilling, d.Phase, d.Reason)
			require.Positive(t, d.Want)
			assert.Empty(t, tab.Out(tc.hot))
			assert.Zero(t, d.Out)
			assert.InDelta(t, d.Want, d.Unplaced, 1e-12, "wanted spill with nowhere to go: %+v", d)
			for i := range 1000 {
				assert.Equal(t, tc.hot, tab.Pick(tc.hot, string(rune('a'+i%26))+string(rune(i))))
			}
		})
	}
}

// TestRingMembersRemovedRejected: a Config whose ring names a removed region is
// rejected with ErrInvalidConfig, and the previous Config stays in force.
func TestRingMembersRemovedRejected(t *testing.T) {
	cfg := six()
	r := mustNew(t, cfg)
	cfg.Regions = cfg.Regions[1:2] // only a2, whose ring is a1 and a3
	err := r.SetConfig(cfg)
	require.Error(t, err)
	assert.True(t, errors.Is(err, failover.ErrInvalidConfig), "%v", err)
	assert.Len(t, r.Config().Regions, 6)
}
