package failover_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestUnknownRegionIsTyped: after SetConfig removes a region, a load report
// still naming it makes Step refuse the whole run. The *LoadError told an
// unknown region from a bad figure only by its Reason text, so a proxy could
// not drop just the stale report; it now matches ErrUnknownRegion, and its
// Region names the report to drop. Other refusals do not match it.
func TestUnknownRegionIsTyped(t *testing.T) {
	cfg := six()
	r := mustNew(t, cfg)
	cut := failover.Config{Tier: cfg.Tier}
	for _, reg := range cfg.Regions {
		if reg.Name != "b3" {
			cut.Regions = append(cut.Regions, reg)
		}
	}
	require.NoError(t, r.SetConfig(cut))

	all := loads(0.4, nil)
	_, err := r.Step(t0, all)
	require.ErrorIs(t, err, failover.ErrUnknownRegion)
	var le *failover.LoadError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "b3", le.Region)
	assert.Equal(t, []string{"b3"}, le.Unknown)
	assert.Equal(t, `failover: load for region "b3": not a region of tier "t"`, err.Error(),
		"the message is unchanged")

	kept := slices.DeleteFunc(slices.Clone(all), func(l failover.Load) bool { return l.Region == le.Region })
	_, err = r.Step(t0, kept)
	require.NoError(t, err, "the run without the stale report steps")

	for name, give := range map[string][]failover.Load{
		"dup":        {{Region: "a1"}, {Region: "a1"}},
		"NaN demand": {{Region: "a1", Demand: math.NaN()}},
	} {
		_, err := r.Step(t0, give)
		require.True(t, errors.As(err, &le), "%s: %v", name, err)
		assert.NotErrorIs(t, err, failover.ErrUnknownRegion, name)
	}
}

// TestUnknownRegionsAllNamed: after SetConfig removes several regions, a run
// still naming them was refused with a *LoadError naming the first only; a
// proxy dropping the report it named stepped again and was refused for the
// next, one rejected run per stale region. The error lists them all now
// (Unknown, in the order of loads, Region first), so one retry without them
// steps; the message of a single unknown region is unchanged
// (TestUnknownRegionIsTyped).
func TestUnknownRegionsAllNamed(t *testing.T) {
	cfg := six()
	r := mustNew(t, cfg)
	cut := failover.Config{Tier: cfg.Tier}
	for _, reg := range cfg.Regions {
		if reg.Name != "b1" && reg.Name != "b3" {
			cut.Regions = append(cut.Regions, reg)
		}
	}
	require.NoError(t, r.SetConfig(cut))

	all := loads(0.4, nil)
	all = append(all, all[0]) // a1 twice: a known region's duplicate after them
	all = append(all, all[5]) // b3 twice: listed once
	_, err := r.Step(t0, all)
	require.ErrorIs(t, err, failover.ErrUnknownRegion)
	var le *failover.LoadError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "b1", le.Region)
	assert.Equal(t, []string{"b1", "b3"}, le.Unknown)
	assert.Equal(t, `failover: load for region "b1": not a region of tier "t" (also unknown: "b3")`, err.Error())

	kept := slices.DeleteFunc(slices.Clone(all[:6]), func(l failover.Load) bool { return slices.Contains(le.Unknown, l.Region) })
	_, err = r.Step(t0, kept)
	require.NoError(t, err, "one retry without every stale report steps")
	assert.Equal(t, uint64(1), r.Stats().Rejected)

	// The first unusable load decides the refusal, as before: unknown
	// regions after a bad figure are not listed, since the caller must fix
	// the figure anyway.
	_, err = r.Step(t0, []failover.Load{{Region: "a1", Demand: math.NaN()}, {Region: "b1"}})
	require.ErrorAs(t, err, &le)
	assert.NotErrorIs(t, err, failover.ErrUnknownRegion)
	assert.Nil(t, le.Unknown)
}
