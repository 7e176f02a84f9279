package main

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// aimd.max below min_limit is a value the limiter refuses: the knob's lower
// bound is min_limit, so a dry run previews what the change does, a strict
// request is refused as out of bounds (422) before any knob of it is
// applied, and a plain one is clamped, as for any other knob's bounds.
func TestAIMDMaxKnobBoundIsMinLimit(t *testing.T) {
	in := startGateway(t, Config{MinLimit: 64})
	info := func() control.Info {
		for _, k := range in.reg.Knobs() {
			if k.Name == "aimd.max" {
				return k
			}
		}
		t.Fatal("no aimd.max knob")
		return control.Info{}
	}
	lo := info().Min
	require.NotNil(t, lo)
	assert.Equal(t, control.Int(64), *lo, "the knob lists the bound the limiter holds it to")

	changes := []control.Change{{Knob: "shed.max_queue", Value: control.Int(10)}, {Knob: "aimd.max", Value: control.Int(10)}}
	dry, err := in.reg.Apply(control.Request{Who: "test", DryRun: true, Changes: changes})
	require.NoError(t, err)

	_, err = in.reg.Apply(control.Request{Who: "test", Strict: true, Changes: changes})
	var be *control.BoundsError
	require.True(t, errors.As(err, &be), "a strict request below min_limit is out of bounds, not a failed apply: %v", err)
	in.gw.mu.Lock()
	assert.Equal(t, 1024, in.gw.shedCfg.MaxQueue, "nothing of the request applied")
	in.gw.mu.Unlock()

	res, err := in.reg.Apply(control.Request{Who: "test", Changes: changes})
	require.NoError(t, err, "the change the dry run previewed applies")
	assert.Equal(t, dry.Changes, res.Changes, "the dry run reported what the change did")
	assert.Equal(t, control.Int(64), res.Changes[1].New)
	assert.True(t, res.Changes[1].Clamped)
	assert.Equal(t, 64, in.gw.limiter.Stats().Limit)
}
