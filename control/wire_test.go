package control_test

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// wireKnobs registers knobs of every kind at edge values: negative, beyond
// 2^53, the int64 extremes, floats a float64 holds only approximately,
// durations down to the nanosecond, unicode strings and an empty enum list.
func wireKnobs(t *testing.T) *control.Registry {
	t.Helper()
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	noI := func(int64) error { return nil }
	noF := func(float64) error { return nil }
	noD := func(time.Duration) error { return nil }
	noS := func(string) error { return nil }
	for _, k := range []control.IntKnob{
		{Name: "i.big", Doc: "beyond 2^53", Min: -(1<<53 + 1), Max: 1<<62 + 3, Value: 1<<53 + 1},
		{Name: "i.extremes", Min: math.MinInt64, Max: math.MaxInt64, Value: math.MaxInt64},
		{Name: "i.neg", Value: -7, MinInterval: time.Second},
	} {
		k.Apply = noI
		require.NoError(t, reg.RegisterInt(k))
	}
	for _, k := range []control.FloatKnob{
		{Name: "f.frac", Min: -math.MaxFloat64, Max: math.MaxFloat64, Value: 0.1},
		{Name: "f.tiny", Min: 5e-324, Max: 1e300, Value: 2.2250738585072014e-308},
		{Name: "f.whole", Value: -3}, // encodes as -3, like an int
		{Name: "f.negzero", Value: 1},
	} {
		k.Apply = noF
		require.NoError(t, reg.RegisterFloat(k))
	}
	for _, k := range []control.DurationKnob{
		{Name: "d.ns", Min: -time.Hour, Max: time.Duration(math.MaxInt64), Value: 1500*time.Millisecond + 1},
		{Name: "d.min", Min: time.Duration(math.MinInt64), Max: 0, Value: time.Duration(math.MinInt64)},
	} {
		k.Apply = noD
		require.NoError(t, reg.RegisterDuration(k))
	}
	require.NoError(t, reg.RegisterBool(control.BoolKnob{Name: "b", Value: true, Apply: func(bool) error { return nil }}))
	for _, k := range []control.StringKnob{
		{Name: "s.unicode", Doc: "naïve ✓ <&>", Value: "日本語 🚀 \u2028 \"q\""},
		{Name: "s.duration", Value: "250ms"}, // a string that reads as a duration
		{Name: "s.enum", Values: []string{"fair", "fifo", "é"}, Value: "é"},
		{Name: "s.emptyenum", Values: []string{}, Value: ""},
	} {
		k.Apply = noS
		require.NoError(t, reg.RegisterString(k))
	}
	_, err = reg.ApplyAt(t0, control.Request{Who: "t", Changes: []control.Change{
		{Knob: "i.neg", Value: control.Int(math.MinInt64)}, {Knob: "f.negzero", Value: control.Float(math.Copysign(0, -1))},
	}})
	require.NoError(t, err)
	return reg
}

// TestInfoJSONRoundTrip: an Info encoded as GET /knobs serves it decodes into
// an equal Info, its values equal to those built with Int, Float, Duration,
// Bool and String (times compared with Equal: JSON keeps no monotonic reading).
// It failed before Kind had an UnmarshalText and Info an UnmarshalJSON.
func TestInfoJSONRoundTrip(t *testing.T) {
	reg := wireKnobs(t)
	want := reg.Knobs()
	data, err := json.Marshal(want)
	require.NoError(t, err)
	var got []control.Info
	require.NoError(t, json.Unmarshal(data, &got), "%s", data)
	require.Len(t, got, len(want))
	for i := range want {
		w, g := want[i], got[i]
		require.True(t, w.LastChange.Equal(g.LastChange), "%s: %v != %v", w.Name, g.LastChange, w.LastChange)
		w.LastChange, g.LastChange = time.Time{}, time.Time{}
		require.Equal(t, w, g)
		require.True(t, w.Value == g.Value, "%s: %#v != %#v", w.Name, g.Value, w.Value)
		v, err := reg.Get(g.Name)
		require.NoError(t, err)
		require.True(t, v == g.Value, "%s", g.Name)
	}
	byName := map[string]control.Value{}
	for _, in := range got {
		byName[in.Name] = in.Value
	}
	require.Equal(t, control.Int(1<<53+1), byName["i.big"])
	require.Equal(t, control.Int(math.MinInt64), byName["i.neg"])
	require.Equal(t, control.Float(-3), byName["f.whole"])
	require.Equal(t, control.KindFloat, byName["f.negzero"].Kind())
	require.True(t, math.Signbit(byName["f.negzero"].Float()), "-0 stays -0")
	require.Equal(t, control.Duration(math.MinInt64), byName["d.min"])
	require.Equal(t, control.String("250ms"), byName["s.duration"])
}

// TestKindText: every knob kind decodes from the name it encodes to; an
// unknown name is an error, and so is a value its kind cannot hold.
func TestKindText(t *testing.T) {
	for _, k := range []control.Kind{0, control.KindInt, control.KindFloat, control.KindDuration, control.KindBool, control.KindString} {
		b, err := json.Marshal(k)
		require.NoError(t, err)
		var got control.Kind
		require.NoError(t, json.Unmarshal(b, &got), "%s", b)
		require.Equal(t, k, got)
	}
	var k control.Kind
	for _, bad := range []string{"", "Int", "number", "text", "uint"} {
		require.Error(t, json.Unmarshal([]byte(strconv.Quote(bad)), &k), "%q", bad)
	}
	var in control.Info
	for _, bad := range []string{
		`{"name":"a","kind":"int","value":1.5}`,
		`{"name":"a","kind":"duration","value":3}`,
		`{"name":"a","kind":"float","value":1,"min":"x","max":2}`,
		`{"name":"a","kind":"bool","value":"true"}`,
		`{"name":"a","kind":"weird","value":1}`,
	} {
		require.Error(t, json.Unmarshal([]byte(bad), &in), "%s", bad)
	}
}

// FuzzInfoJSONRoundTrip: the Info of any knob a registry accepts decodes
// from its JSON into an equal Info.
func FuzzInfoJSONRoundTrip(f *testing.F) {
	f.Add(uint8(0), int64(1<<53+1), int64(-5), int64(1<<62), 0.1, "日本語")
	f.Add(uint8(1), int64(math.MinInt64), int64(0), int64(0), -1e300, "")
	f.Add(uint8(2), int64(-1), int64(math.MinInt64), int64(math.MaxInt64), 5e-324, "250ms")
	f.Add(uint8(4), int64(0), int64(0), int64(0), 0.0, "\u2028<&>\"")
	f.Fuzz(func(t *testing.T, kind uint8, i, lo, hi int64, fl float64, s string) {
		if !utf8.ValidString(s) {
			t.Skip("JSON strings hold UTF-8 only")
		}
		reg, err := control.New(control.Config{})
		require.NoError(t, err)
		switch kind % 5 {
		case 0:
			err = reg.RegisterInt(control.IntKnob{Name: "k", Doc: s, Min: lo, Max: hi, Value: i, Apply: func(int64) error { return nil }})
		case 1:
			err = reg.RegisterFloat(control.FloatKnob{Name: "k", Min: float64(lo), Max: float64(hi) * fl, Value: fl,
				Apply: func(float64) error { return nil }})
		case 2:
			err = reg.RegisterDuration(control.DurationKnob{Name: "k", Min: time.Duration(lo), Max: time.Duration(hi),
				Value: time.Duration(i), MinInterval: time.Duration(hi), Apply: func(time.Duration) error { return nil }})
		case 3:
			err = reg.RegisterBool(control.BoolKnob{Name: "k", Value: i&1 == 1, Apply: func(bool) error { return nil }})
		case 4:
			var enum []string
			if lo&1 == 1 {
				enum = []string{s, "x"}
			}
			err = reg.RegisterString(control.StringKnob{Name: "k", Values: enum, Value: s, Apply: func(string) error { return nil }})
		}
		if err != nil {
			return // not a knob a registry holds
		}
		want := reg.Knobs()
		data, err := json.Marshal(want)
		require.NoError(t, err)
		var got []control.Info
		require.NoError(t, json.Unmarshal(data, &got), "%s", data)
		require.Equal(t, want, got)
		require.True(t, want[0].Value == got[0].Value)
	})
}

// roundTrip encodes v as JSON and decodes it into a new T.
func roundTrip[T any](t *testing.T, v T) T {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	var back T
	require.NoError(t, json.Unmarshal(data, &back), "%s", data)
	return back
}

// TestAuditResultStatsJSONRoundTrip: the audit log, the Results of a change
// and of a rollback, and Stats, as the HTTP API serves them, decode into equal
// values. It failed before entries and outcomes carried their knob's kind:
// the JSON of a float 2 is that of an int 2, and "250ms" is a duration or a
// string.
func TestAuditResultStatsJSONRoundTrip(t *testing.T) {
	reg := wireKnobs(t)
	res, err := reg.ApplyAt(t0.Add(time.Minute), control.Request{Who: "ø", Why: "naïve ✓", Changes: []control.Change{
		{Knob: "i.big", Value: control.Int(1<<62 + 3)},
		{Knob: "i.extremes", Value: control.Int(math.MinInt64)},
		{Knob: "f.whole", Value: control.Float(2)},
		{Knob: "f.frac", Value: control.Float(1e308)},
		{Knob: "d.ns", Value: control.Duration(-time.Hour)},
		{Knob: "d.min", Value: control.Duration(-1)},
		{Knob: "b", Value: control.Bool(false)},
		{Knob: "s.duration", Value: control.String("1h0m0s")},
		{Knob: "s.unicode", Value: control.String("𝄞")},
	}})
	require.NoError(t, err)
	require.Equal(t, res, roundTrip(t, res))
	rb, err := reg.RollbackAt(t0.Add(time.Hour), "ops", "undo")
	require.NoError(t, err)
	require.Equal(t, rb, roundTrip(t, rb))

	want := reg.Audit()
	got := roundTrip(t, want)
	require.Len(t, got, len(want))
	for i := range want {
		w, g := want[i], got[i]
		require.True(t, w.Time.Equal(g.Time), "entry %d: %v != %v", w.Seq, g.Time, w.Time)
		w.Time, g.Time = time.Time{}, time.Time{}
		require.Equal(t, w, g)
		require.True(t, w.Old == g.Old && w.New == g.New, "entry %d", w.Seq)
	}
	st := reg.Stats()
	require.Equal(t, st, roundTrip(t, st))
}

// TestEntryWithoutKindDecodes: an entry from a registry that sent no kind
// still decodes; its values wait for their knob, as a change's do.
func TestEntryWithoutKindDecodes(t *testing.T) {
	var e control.Entry
	require.NoError(t, json.Unmarshal([]byte(`{"seq":1,"batch":1,"time":"2026-01-01T00:00:00Z","knob":"d","old":"1s","new":"2s"}`), &e))
	require.Equal(t, "2s", e.New.String())
	require.NotEqual(t, control.Duration(2*time.Second), e.New)
	require.Error(t, json.Unmarshal([]byte(`{"knob":"n","kind":"int","old":1.5,"new":2}`), &e))
}
