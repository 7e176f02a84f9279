package control_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// Edge values FuzzKnobBounds draws bounds, initial values and changes from.
var (
	knobFloats = []float64{0, math.Copysign(0, -1), 5e-324, -5e-324, 1e-300, 0.5, 1, -1, 100,
		math.MaxFloat64, -math.MaxFloat64, math.NaN(), math.Inf(1), math.Inf(-1)}
	knobInts = []int64{0, 1, -1, 100, 1 << 53, 1<<53 + 1, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1}
)

// FuzzKnobBounds registers a float, an int and a duration knob with bounds
// and initial values drawn from edge values (NaN, ±Inf, ±0, subnormal,
// extremes, Min > Max, an initial value outside the bounds), then changes
// them to edge values, clamped or strict. Invariants: a registration either
// succeeds or fails and leaves no knob behind; a registered knob's value is
// within its bounds and finite, as its component holds it; a change is
// applied within the bounds or refused with a *ValueError or *BoundsError,
// and a refused one changes nothing.
func FuzzKnobBounds(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0}, []byte{5, 1, 7, 2})
	f.Add([]byte{7, 4, 5, 2, 1, 3, 2, 1, 1}, []byte{9, 10, 11, 12, 0x81, 0x82})
	f.Add([]byte{11, 8, 8, 7, 6, 6, 4, 3, 5}, []byte{13, 3, 0x84, 0x88, 0x8c})
	f.Add([]byte{1, 0, 2, 0, 1, 0, 8, 7, 7}, []byte{4, 9, 0x89})
	f.Fuzz(func(t *testing.T, spec, changes []byte) {
		var p [9]byte
		copy(p[:], spec)
		fl := func(b byte) float64 { return knobFloats[int(b)%len(knobFloats)] }
		in := func(b byte) int64 { return knobInts[int(b)%len(knobInts)] }
		reg, err := control.New(control.Config{})
		require.NoError(t, err)
		held := map[string]control.Value{} // what each component holds
		regErr := map[string]error{
			"f": reg.RegisterFloat(control.FloatKnob{Name: "f", Min: fl(p[0]), Max: fl(p[1]), Value: fl(p[2]),
				Apply: func(v float64) error { held["f"] = control.Float(v); return nil }}),
			"n": reg.RegisterInt(control.IntKnob{Name: "n", Min: in(p[3]), Max: in(p[4]), Value: in(p[5]),
				Apply: func(v int64) error { held["n"] = control.Int(v); return nil }}),
			"d": reg.RegisterDuration(control.DurationKnob{Name: "d", Min: time.Duration(in(p[6])),
				Max: time.Duration(in(p[7])), Value: time.Duration(in(p[8])),
				Apply: func(v time.Duration) error { held["d"] = control.Duration(v); return nil }}),
		}
		for name, err := range regErr {
			if v, gerr := reg.Get(name); err != nil {
				require.ErrorIs(t, gerr, control.ErrUnknownKnob, "refused knob %s registered", name)
			} else {
				held[name] = v
			}
		}
		checkKnobs(t, reg, held)
		now := t0
		for i, c := range changes[:min(len(changes), 16)] {
			name := []string{"f", "n", "d"}[i%3]
			if regErr[name] != nil {
				continue
			}
			v := control.Float(fl(c & 0x7f))
			if c&0x7f >= byte(len(knobFloats)) {
				v = control.Int(in(c & 0x7f))
			}
			before := reg.Knobs()
			now = now.Add(time.Second)
			_, err := reg.ApplyAt(now, control.Request{Strict: c&0x80 != 0, Changes: []control.Change{{Knob: name, Value: v}}})
			if err != nil {
				var ve *control.ValueError
				var be *control.BoundsError
				require.True(t, errors.As(err, &ve) || errors.As(err, &be), "%s = %v: %v", name, v, err)
				require.Equal(t, before, reg.Knobs(), "a refused change changed a knob")
			}
			checkKnobs(t, reg, held)
		}
	})
}

// checkKnobs checks every knob against its bounds and its component.
func checkKnobs(t *testing.T, reg *control.Registry, held map[string]control.Value) {
	t.Helper()
	for _, k := range reg.Knobs() {
		require.Equal(t, held[k.Name], k.Value, "%s: the component holds another value", k.Name)
		require.False(t, math.IsNaN(k.Value.Float()) || math.IsInf(k.Value.Float(), 0), "%s = %v", k.Name, k.Value)
		if k.Min == nil {
			continue
		}
		switch k.Kind {
		case control.KindFloat:
			require.True(t, k.Min.Float() <= k.Value.Float() && k.Value.Float() <= k.Max.Float(), "%s = %v", k.Name, k.Value)
		case control.KindDuration:
			require.True(t, k.Min.Duration() <= k.Value.Duration() && k.Value.Duration() <= k.Max.Duration(), "%s = %v", k.Name, k.Value)
		default:
			require.True(t, k.Min.Int() <= k.Value.Int() && k.Value.Int() <= k.Max.Int(), "%s = %v", k.Name, k.Value)
		}
	}
}
