package control

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// IntKnob describes an integer knob for [Registry.RegisterInt].
type IntKnob struct {
	Name string // unique in the registry, e.g. "shed.max_queue"; required
	Doc  string // one line: what the knob does and its unit

	// Min and Max bound the value (inclusive). Both 0 means unbounded.
	Min, Max int64

	// Value is the current setting when the knob is registered.
	Value int64

	// Apply makes v the component's setting, typically by building a new
	// Config and calling the component's SetConfig. It is called with the
	// registry's change lock held: it must not change the registry (reads are
	// fine). A non-nil error rejects the change (and the rest of its batch).
	// Required.
	Apply func(v int64) error

	// MinInterval is the least time between two changes of this knob; 0 means
	// no per-knob limit. Rollbacks, and the repair of an Unsure knob to the
	// value reported (see [Info.Unsure]), do not wait for it.
	MinInterval time.Duration
}

// FloatKnob describes a float knob for [Registry.RegisterFloat]. Values must be
// finite.
type FloatKnob struct {
	Name, Doc   string
	Min, Max    float64 // inclusive bounds; both 0 means unbounded
	Value       float64
	Apply       func(v float64) error
	MinInterval time.Duration
}

// DurationKnob describes a duration knob for [Registry.RegisterDuration].
type DurationKnob struct {
	Name, Doc   string
	Min, Max    time.Duration // inclusive bounds; both 0 means unbounded
	Value       time.Duration
	Apply       func(v time.Duration) error
	MinInterval time.Duration
}

// BoolKnob describes an on/off knob for [Registry.RegisterBool].
type BoolKnob struct {
	Name, Doc   string
	Value       bool
	Apply       func(v bool) error
	MinInterval time.Duration
}

// StringKnob describes a string knob for [Registry.RegisterString]. With Values
// set it is an enum: only those strings are accepted.
type StringKnob struct {
	Name, Doc   string
	Values      []string // allowed values; empty means any string up to MaxLen
	MaxLen      int      // longest accepted string in bytes (a longer one is a *ValueError, never cut); 0 means 256; negative is refused
	Value       string
	Apply       func(v string) error
	MinInterval time.Duration
}

// Info describes a registered knob and its current value, as [Registry.Knobs]
// and the HTTP API report it.
type Info struct {
	Name  string `json:"name"`
	Doc   string `json:"doc,omitempty"`
	Kind  Kind   `json:"kind"`
	Value Value  `json:"value"`
	// Min and Max are the inclusive bounds of a numeric knob; nil when unbounded.
	Min         *Value        `json:"min,omitempty"`
	Max         *Value        `json:"max,omitempty"`
	Values      []string      `json:"values,omitempty"`          // a string enum's values
	MinInterval time.Duration `json:"min_interval_ns,omitempty"` // least time between two changes
	LastChange  time.Time     `json:"last_change,omitzero"`      // zero if never changed since registration
	// Unsure is set when the knob's component may hold another value than
	// Value: a batch failed and giving the knob its old value back failed or
	// panicked, or its own Apply panicked. The caller of that batch may not
	// have been told (a panic reaches it with the first panic's value only):
	// send the knob the value it should have, which is applied even if it
	// equals Value, and clears the mark. Sent Value, it is applied without
	// waiting for MinInterval (Value does not change; the failed batch
	// changed the component regardless, and a failed rollback even when
	// MinInterval would not have let a change through).
	Unsure bool `json:"unsure,omitempty"`
}

// knob is the registry's kind-independent view of a knob.
type knob struct {
	name, doc   string
	kind        Kind
	min, max    Value // invalid when unbounded
	values      []string
	maxLen      int
	apply       func(Value) error
	minInterval time.Duration

	// Guarded by Registry.mu.
	value      Value
	lastChange time.Time

	// unsure is set when giving the knob its old value back failed (see
	// [ApplyError]): its component may hold another value than the one
	// reported, so its next change is applied even if it sets that value.
	// Written with Registry.change and Registry.mu held, read with either.
	unsure bool
}

func (k *knob) validate() error {
	if k.name == "" || strings.TrimSpace(k.name) != k.name || strings.ContainsAny(k.name, "\n\r\t \"") {
		return fmt.Errorf("%w: knob name %q is empty or has spaces or quotes", ErrInvalidKnob, k.name)
	}
	if !utf8.ValidString(k.name) || !utf8.ValidString(k.doc) || slices.ContainsFunc(k.values, notUTF8) {
		return fmt.Errorf("%w: knob %q has a name, Doc or Values that are not valid UTF-8", ErrInvalidKnob, k.name)
	}
	if k.apply == nil {
		return fmt.Errorf("%w: knob %q has no Apply func", ErrInvalidKnob, k.name)
	}
	if k.minInterval < 0 {
		return fmt.Errorf("%w: knob %q has a negative MinInterval", ErrInvalidKnob, k.name)
	}
	if k.min.IsValid() && less(k.max, k.min) {
		return fmt.Errorf("%w: knob %q has Min %v > Max %v", ErrInvalidKnob, k.name, k.min, k.max)
	}
	if k.kind == KindFloat && k.min.IsValid() && (!finite(k.min.f) || !finite(k.max.f)) {
		return fmt.Errorf("%w: knob %q has non-finite bounds", ErrInvalidKnob, k.name)
	}
	if k.kind == KindString {
		if k.maxLen < 0 {
			return fmt.Errorf("%w: knob %q has a negative MaxLen", ErrInvalidKnob, k.name)
		}
		if slices.Contains(k.values, "") && len(k.values) == 1 {
			return fmt.Errorf("%w: knob %q has only the empty value", ErrInvalidKnob, k.name)
		}
	}
	v, err := k.check(k.value, true)
	if err != nil {
		return fmt.Errorf("%w: knob %q initial value: %w", ErrInvalidKnob, k.name, err)
	}
	k.value = v
	return nil
}

// maxQuote bounds the bytes of a value a *ValueError quotes.
const maxQuote = 64

// check converts v to the knob's kind and bounds it: out-of-range values are
// clamped, or rejected with a *BoundsError when strict.
func (k *knob) check(v Value, strict bool) (Value, error) {
	c, why := coerce(k.kind, v)
	if why != "" {
		return Value{}, &ValueError{Knob: k.name, Value: clip(v.String(), maxQuote), Reason: why}
	}
	switch k.kind {
	case KindString:
		// JSON replaces each byte of a string that is not UTF-8 with U+FFFD:
		// the knob list and the audit log could not show the value set.
		if !utf8.ValidString(c.s) {
			return Value{}, &ValueError{Knob: k.name, Value: clip(c.s, maxQuote), Reason: "not valid UTF-8"}
		}
		if len(k.values) > 0 && !slices.Contains(k.values, c.s) {
			return Value{}, &ValueError{Knob: k.name, Value: clip(c.s, maxQuote), Reason: "not one of " + strings.Join(k.values, ", ")}
		}
		if len(k.values) == 0 && len(c.s) > k.maxLen {
			return Value{}, &ValueError{Knob: k.name, Value: clip(c.s, maxQuote), Reason: fmt.Sprintf("longer than %d bytes", k.maxLen)}
		}
		return c, nil
	case KindBool:
		return c, nil
	}
	if !k.min.IsValid() {
		return c, nil
	}
	out := c
	if less(c, k.min) {
		out = k.min
	} else if less(k.max, c) {
		out = k.max
	}
	if out != c && strict {
		return Value{}, &BoundsError{Knob: k.name, Value: c, Min: k.min, Max: k.max}
	}
	return out, nil
}

func (k *knob) info() Info {
	in := Info{Name: k.name, Doc: k.doc, Kind: k.kind, Value: k.value,
		MinInterval: k.minInterval, LastChange: k.lastChange, Unsure: k.unsure}
	if len(k.values) > 0 { // nil, not empty, as JSON without "values" decodes
		in.Values = slices.Clone(k.values)
	}
	if k.min.IsValid() {
		lo, hi := k.min, k.max
		in.Min, in.Max = &lo, &hi
	}
	return in
}

// less orders two values of one numeric kind.
func less(a, b Value) bool {
	if a.kind == KindFloat {
		return a.f < b.f
	}
	return a.i < b.i
}

func notUTF8(s string) bool { return !utf8.ValidString(s) }

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

func bounds[T comparable](lo, hi T, mk func(T) Value) (Value, Value) {
	var zero T
	if lo == zero && hi == zero {
		return Value{}, Value{}
	}
	return mk(lo), mk(hi)
}

func fromInt(k IntKnob) *knob {
	lo, hi := bounds(k.Min, k.Max, Int)
	var apply func(Value) error
	if k.Apply != nil {
		apply = func(v Value) error { return k.Apply(v.i) }
	}
	return &knob{name: k.Name, doc: k.Doc, kind: KindInt, min: lo, max: hi, value: Int(k.Value),
		apply: apply, minInterval: k.MinInterval}
}

func fromFloat(k FloatKnob) *knob {
	lo, hi := bounds(k.Min, k.Max, Float)
	var apply func(Value) error
	if k.Apply != nil {
		apply = func(v Value) error { return k.Apply(v.f) }
	}
	return &knob{name: k.Name, doc: k.Doc, kind: KindFloat, min: lo, max: hi, value: Float(k.Value),
		apply: apply, minInterval: k.MinInterval}
}

func fromDuration(k DurationKnob) *knob {
	lo, hi := bounds(k.Min, k.Max, Duration)
	var apply func(Value) error
	if k.Apply != nil {
		apply = func(v Value) error { return k.Apply(time.Duration(v.i)) }
	}
	return &knob{name: k.Name, doc: k.Doc, kind: KindDuration, min: lo, max: hi, value: Duration(k.Value),
		apply: apply, minInterval: k.MinInterval}
}

func fromBool(k BoolKnob) *knob {
	var apply func(Value) error
	if k.Apply != nil {
		apply = func(v Value) error { return k.Apply(v.i == 1) }
	}
	return &knob{name: k.Name, doc: k.Doc, kind: KindBool, value: Bool(k.Value), apply: apply, minInterval: k.MinInterval}
}

func fromString(k StringKnob) *knob {
	var apply func(Value) error
	if k.Apply != nil {
		apply = func(v Value) error { return k.Apply(v.s) }
	}
	maxLen := k.MaxLen
	if maxLen == 0 { // a negative one is refused by validate
		maxLen = 256
	}
	return &knob{name: k.Name, doc: k.Doc, kind: KindString, values: slices.Clone(k.Values), maxLen: maxLen,
		value: String(k.Value), apply: apply, minInterval: k.MinInterval}
}
