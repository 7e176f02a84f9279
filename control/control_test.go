package control_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fixture registers one knob of each kind, each writing into a field.
type fixture struct {
	reg   *control.Registry
	n     int64
	f     float64
	d     time.Duration
	b     bool
	s     string
	fail  string // knob whose Apply fails
	calls int
}

func newFixture(t testing.TB, cfg control.Config) *fixture {
	t.Helper()
	reg, err := control.New(cfg)
	require.NoError(t, err)
	fx := &fixture{reg: reg, n: 10, f: 0.5, d: time.Second, s: "fair"}
	apply := func(name string, set func()) error {
		fx.calls++
		if fx.fail == name {
			return errors.New("refused")
		}
		set()
		return nil
	}
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "n", Doc: "an int", Min: 1, Max: 100, Value: fx.n,
		Apply: func(v int64) error { return apply("n", func() { fx.n = v }) }}))
	require.NoError(t, reg.RegisterFloat(control.FloatKnob{Name: "f", Min: 0, Max: 1, Value: fx.f,
		Apply: func(v float64) error { return apply("f", func() { fx.f = v }) }}))
	require.NoError(t, reg.RegisterDuration(control.DurationKnob{Name: "d", Min: time.Millisecond, Max: time.Minute,
		Value: fx.d, Apply: func(v time.Duration) error { return apply("d", func() { fx.d = v }) }}))
	require.NoError(t, reg.RegisterBool(control.BoolKnob{Name: "b", Value: fx.b,
		Apply: func(v bool) error { return apply("b", func() { fx.b = v }) }}))
	require.NoError(t, reg.RegisterString(control.StringKnob{Name: "s", Values: []string{"fair", "fifo"}, Value: fx.s,
		Apply: func(v string) error { return apply("s", func() { fx.s = v }) }}))
	return fx
}

func one(knob string, v control.Value) control.Request {
	return control.Request{Who: "t", Why: "test", Changes: []control.Change{{Knob: knob, Value: v}}}
}

func TestApplyValues(t *testing.T) {
	tests := []struct {
		name    string
		give    control.Request
		want    control.Value
		clamped bool
		wantErr any // sentinel error or pointer to a typed error
	}{
		{"int", one("n", control.Int(42)), control.Int(42), false, nil},
		{"int clamped high", one("n", control.Int(1000)), control.Int(100), true, nil},
		{"int clamped low", one("n", control.Int(-5)), control.Int(1), true, nil},
		{"int strict", control.Request{Strict: true, Changes: one("n", control.Int(1000)).Changes}, control.Int(10), false, new(*control.BoundsError)},
		{"float", one("f", control.Float(0.25)), control.Float(0.25), false, nil},
		{"float from int", one("f", control.Int(1)), control.Float(1), false, nil},
		{"duration", one("d", control.Duration(5*time.Second)), control.Duration(5 * time.Second), false, nil},
		{"duration clamped", one("d", control.Duration(time.Hour)), control.Duration(time.Minute), true, nil},
		{"bool", one("b", control.Bool(true)), control.Bool(true), false, nil},
		{"enum", one("s", control.String("fifo")), control.String("fifo"), false, nil},
		{"enum outside", one("s", control.String("lifo")), control.String("fair"), false, new(*control.ValueError)},
		{"wrong kind", one("n", control.String("x")), control.Int(10), false, new(*control.ValueError)},
		{"unknown", one("zz", control.Int(1)), control.Value{}, false, control.ErrUnknownKnob},
		{"empty", control.Request{}, control.Value{}, false, control.ErrEmptyRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t, control.Config{})
			res, err := fx.reg.ApplyAt(t0, tt.give)
			switch want := tt.wantErr.(type) {
			case nil:
				require.NoError(t, err)
				assert.Equal(t, tt.clamped, res.Changes[0].Clamped)
				assert.NotZero(t, res.Batch)
			case error:
				require.ErrorIs(t, err, want)
				return
			default:
				require.ErrorAs(t, err, want)
			}
			got, err := fx.reg.Get(tt.give.Changes[0].Knob)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestJSONValuesCoerce(t *testing.T) {
	tests := []struct {
		give string
		want control.Value
		ok   bool
	}{
		{`{"changes":[{"knob":"n","value":7}]}`, control.Int(7), true},
		{`{"changes":[{"knob":"n","value":7.0}]}`, control.Int(7), true},
		{`{"changes":[{"knob":"n","value":7.5}]}`, control.Value{}, false},
		{`{"changes":[{"knob":"f","value":0.125}]}`, control.Float(0.125), true},
		{`{"changes":[{"knob":"f","value":1e400}]}`, control.Value{}, false},
		{`{"changes":[{"knob":"d","value":"250ms"}]}`, control.Duration(250 * time.Millisecond), true},
		{`{"changes":[{"knob":"d","value":250}]}`, control.Value{}, false},
		{`{"changes":[{"knob":"b","value":true}]}`, control.Bool(true), true},
		{`{"changes":[{"knob":"s","value":"fifo"}]}`, control.String("fifo"), true},
		{`{"changes":[{"knob":"s","value":null}]}`, control.Value{}, false},
		{`{"changes":[{"knob":"s","value":"fifo"}],"extra":1}`, control.Value{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			fx := newFixture(t, control.Config{})
			req, err := control.DecodeRequest([]byte(tt.give))
			if err == nil {
				_, err = fx.reg.ApplyAt(t0, req)
			}
			if !tt.ok {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			got, _ := fx.reg.Get(req.Changes[0].Knob)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestValueJSONRoundTrip(t *testing.T) {
	for _, v := range []control.Value{control.Int(-3), control.Float(2.5), control.Duration(90 * time.Second),
		control.Bool(true), control.Bool(false), control.String("x\"y")} {
		data, err := json.Marshal(v)
		require.NoError(t, err)
		var back control.Value
		require.NoError(t, json.Unmarshal(data, &back))
		assert.Equal(t, v.String(), back.String(), string(data))
	}
}

func TestBatchAllOrNothing(t *testing.T) {
	fx := newFixture(t, control.Config{})
	fx.fail = "s"
	_, err := fx.reg.ApplyAt(t0, control.Request{Changes: []control.Change{
		{Knob: "n", Value: control.Int(50)},
		{Knob: "f", Value: control.Float(0.9)},
		{Knob: "s", Value: control.String("fifo")},
	}})
	var ae *control.ApplyError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "s", ae.Knob)
	assert.Empty(t, ae.Undo)
	assert.Equal(t, int64(10), fx.n, "component restored")
	assert.Equal(t, 0.5, fx.f, "component restored")
	v, _ := fx.reg.Get("n")
	assert.Equal(t, control.Int(10), v)
	assert.Empty(t, fx.reg.Audit())
	assert.Equal(t, uint64(1), fx.reg.Stats().ApplyFailed)
}

func TestValidationFailureCallsNoApply(t *testing.T) {
	fx := newFixture(t, control.Config{})
	_, err := fx.reg.ApplyAt(t0, control.Request{Changes: []control.Change{
		{Knob: "n", Value: control.Int(50)},
		{Knob: "n", Value: control.Int(51)},
	}})
	require.ErrorIs(t, err, control.ErrDuplicateChange)
	_, err = fx.reg.ApplyAt(t0, control.Request{Changes: []control.Change{
		{Knob: "n", Value: control.Int(50)},
		{Knob: "nope", Value: control.Int(1)},
	}})
	require.ErrorIs(t, err, control.ErrUnknownKnob)
	assert.Zero(t, fx.calls)
}

func TestDryRun(t *testing.T) {
	fx := newFixture(t, control.Config{Rate: 1})
	req := one("n", control.Int(500))
	req.DryRun = true
	for range 3 { // a dry run consumes no budget
		res, err := fx.reg.ApplyAt(t0, req)
		require.NoError(t, err)
		assert.True(t, res.DryRun)
		assert.Zero(t, res.Batch)
		assert.Equal(t, control.Int(100), res.Changes[0].New)
		assert.True(t, res.Changes[0].Clamped)
	}
	assert.Zero(t, fx.calls)
	assert.Equal(t, int64(10), fx.n)
	assert.Empty(t, fx.reg.Audit())
	_, err := fx.reg.ApplyAt(t0, one("n", control.Int(20)))
	require.NoError(t, err)
}

func TestNoOpIsFreeAndUnaudited(t *testing.T) {
	fx := newFixture(t, control.Config{Rate: 1})
	res, err := fx.reg.ApplyAt(t0, one("n", control.Int(10)))
	require.NoError(t, err)
	assert.True(t, res.Changes[0].Unchanged)
	assert.Zero(t, res.Batch)
	assert.Zero(t, fx.calls)
	assert.Empty(t, fx.reg.Audit())
	assert.Equal(t, uint64(1), fx.reg.Stats().NoOps)
}

func TestRateLimits(t *testing.T) {
	tests := []struct {
		name      string
		cfg       control.Config
		at        []time.Duration // offsets of successive changes of n
		wantOK    []bool
		wantRetry time.Duration // RetryAfter of the last refusal
	}{
		{"budget 1/s burst 2", control.Config{Rate: 1, Burst: 2},
			[]time.Duration{0, 0, 0, 500 * time.Millisecond, time.Second},
			[]bool{true, true, false, false, true}, 500 * time.Millisecond},
		{"no budget", control.Config{},
			[]time.Duration{0, 0, 0}, []bool{true, true, true}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t, tt.cfg)
			var retry time.Duration
			for i, off := range tt.at {
				_, err := fx.reg.ApplyAt(t0.Add(off), one("n", control.Int(int64(20+i))))
				var rl *control.RateLimitError
				if errors.As(err, &rl) {
					retry = rl.RetryAfter
				}
				assert.Equal(t, tt.wantOK[i], err == nil, "change %d: %v", i, err)
			}
			assert.Equal(t, tt.wantRetry, retry)
		})
	}
}

func TestMinIntervalPerKnob(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	for _, name := range []string{"a", "b"} {
		require.NoError(t, reg.RegisterInt(control.IntKnob{Name: name, MinInterval: time.Minute,
			Apply: func(int64) error { return nil }}))
	}
	_, err = reg.ApplyAt(t0, one("a", control.Int(1)))
	require.NoError(t, err)
	_, err = reg.ApplyAt(t0.Add(time.Second), one("b", control.Int(1)))
	require.NoError(t, err, "other knob unaffected")
	_, err = reg.ApplyAt(t0.Add(time.Second), one("a", control.Int(2)))
	var rl *control.RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, "a", rl.Knob)
	assert.Equal(t, 59*time.Second, rl.RetryAfter)
	_, err = reg.ApplyAt(t0.Add(time.Second), one("a", control.Int(1)))
	require.NoError(t, err, "a no-op is not rate limited")
}

func TestRollbackStack(t *testing.T) {
	fx := newFixture(t, control.Config{})
	for i, v := range []int64{20, 30, 40} {
		_, err := fx.reg.ApplyAt(t0.Add(time.Duration(i)*time.Second), one("n", control.Int(v)))
		require.NoError(t, err)
	}
	for _, want := range []int64{30, 20, 10} {
		_, err := fx.reg.RollbackAt(t0.Add(time.Hour), "ops", "undo")
		require.NoError(t, err)
		assert.Equal(t, want, fx.n)
	}
	_, err := fx.reg.RollbackAt(t0.Add(time.Hour), "ops", "undo")
	require.ErrorIs(t, err, control.ErrNothingToRollback)
	checkAudit(t, fx.reg)
	assert.Equal(t, uint64(3), fx.reg.Stats().Rollbacks)
}

func TestRollbackBatch(t *testing.T) {
	fx := newFixture(t, control.Config{})
	_, err := fx.reg.ApplyAt(t0, control.Request{Changes: []control.Change{
		{Knob: "n", Value: control.Int(50)}, {Knob: "b", Value: control.Bool(true)}}})
	require.NoError(t, err)
	res, err := fx.reg.RollbackAt(t0, "ops", "")
	require.NoError(t, err)
	assert.Len(t, res.Changes, 2)
	assert.Equal(t, int64(10), fx.n)
	assert.False(t, fx.b)
}

func TestRollbackBeyondAuditBound(t *testing.T) {
	fx := newFixture(t, control.Config{AuditSize: 3})
	for i := range 5 {
		_, err := fx.reg.ApplyAt(t0, one("n", control.Int(int64(20+i))))
		require.NoError(t, err)
	}
	assert.Len(t, fx.reg.Audit(), 3)
	// Batches 3..5 are in the log; each rollback adds an entry and evicts the
	// oldest, so two rollbacks fit before history runs out.
	for _, want := range []int64{23, 22} {
		_, err := fx.reg.RollbackAt(t0, "ops", "")
		require.NoError(t, err)
		assert.Equal(t, want, fx.n)
	}
	_, err := fx.reg.RollbackAt(t0, "ops", "")
	require.ErrorIs(t, err, control.ErrNothingToRollback)
	assert.Positive(t, fx.reg.Stats().Evicted)
}

func TestRegisterErrors(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	ok := func(int64) error { return nil }
	tests := []struct {
		name string
		give control.IntKnob
	}{
		{"no name", control.IntKnob{Apply: ok}},
		{"space", control.IntKnob{Name: "a b", Apply: ok}},
		{"no apply", control.IntKnob{Name: "x"}},
		{"min > max", control.IntKnob{Name: "x", Min: 5, Max: 1, Apply: ok}},
		{"initial outside", control.IntKnob{Name: "x", Min: 1, Max: 5, Value: 9, Apply: ok}},
		{"negative interval", control.IntKnob{Name: "x", MinInterval: -1, Apply: ok}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Error(t, reg.RegisterInt(tt.give))
		})
	}
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "x", Apply: ok}))
	require.ErrorIs(t, reg.RegisterInt(control.IntKnob{Name: "x", Apply: ok}), control.ErrDuplicateKnob)
	require.Error(t, reg.RegisterFloat(control.FloatKnob{Name: "y", Min: 0, Max: 1, Value: 2,
		Apply: func(float64) error { return nil }}))
}

func TestConfigValidate(t *testing.T) {
	for _, cfg := range []control.Config{{AuditSize: -1}, {Rate: -1}, {Burst: 2}, {Rate: 1, Burst: -1}} {
		_, err := control.New(cfg)
		require.Error(t, err, "%+v", cfg)
		assert.Contains(t, err.Error(), "control: ")
	}
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	require.NoError(t, reg.SetConfig(control.Config{Rate: 2, Burst: 4}))
	require.Error(t, reg.SetConfig(control.Config{Burst: 4}))
}

func TestStateAndKnobs(t *testing.T) {
	fx := newFixture(t, control.Config{})
	require.NoError(t, fx.reg.RegisterState("comp", func() any { return map[string]int{"x": 1} }))
	require.ErrorIs(t, fx.reg.RegisterState("comp", func() any { return nil }), control.ErrDuplicateKnob)
	assert.Equal(t, map[string]int{"x": 1}, fx.reg.State()["comp"])
	var names []string
	for _, k := range fx.reg.Knobs() {
		names = append(names, k.Name)
	}
	assert.Equal(t, []string{"b", "d", "f", "n", "s"}, names)
	_, err := fx.reg.Get("nope")
	require.ErrorIs(t, err, control.ErrUnknownKnob)
}

// checkAudit asserts the audit invariant: per knob, each entry's Old is the
// previous entry's New, and the last New is the knob's current value.
func checkAudit(t testing.TB, reg *control.Registry) {
	t.Helper()
	last := map[string]control.Value{}
	var seq uint64
	for _, e := range reg.Audit() {
		require.Greater(t, e.Seq, seq, "seq increases")
		seq = e.Seq
		if prev, ok := last[e.Knob]; ok {
			require.Equal(t, prev, e.Old, "entry %d of %s chains", e.Seq, e.Knob)
		}
		require.NotEqual(t, e.Old, e.New, "entry %d changes something", e.Seq)
		last[e.Knob] = e.New
	}
	for name, v := range last {
		got, err := reg.Get(name)
		require.NoError(t, err)
		require.Equal(t, v, got, "knob %s matches its last audit entry", name)
	}
}
