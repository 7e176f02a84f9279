package control

import (
	"encoding/json"
)

// UnmarshalText decodes a kind name written by [Kind.MarshalText] ("int",
// "float", "duration", "bool", "string"; "invalid" for the zero Kind). Any
// other name is a [*KindError] and leaves k as it was.
func (k *Kind) UnmarshalText(b []byte) error {
	for x := range kindText + 1 {
		if x == kindNumber || x == kindText {
			continue // a JSON value's kind before it meets a knob, never a knob's
		}
		if string(b) == x.String() {
			*k = x
			return nil
		}
	}
	return &KindError{Text: string(b)}
}

// UnmarshalJSON decodes an Info as [Registry.Knobs] and GET /knobs encode it.
// Its Value, Min and Max take the kind the JSON names, so that they equal the
// values the registry reports (a JSON 3 of a float knob is Float(3), not a
// number waiting for its knob); a value that kind cannot hold is a
// [*ValueError].
func (in *Info) UnmarshalJSON(b []byte) error {
	type plain Info // without this method
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	if err := settleAll(p.Name, p.Kind, &p.Value, p.Min, p.Max); err != nil {
		return err
	}
	*in = Info(p)
	return nil
}

// settle gives a value decoded from JSON, of knob, the kind k (a nil v is
// left alone); a value k cannot hold is a *ValueError.
func settle(knob string, k Kind, v *Value) error {
	if v == nil {
		return nil
	}
	c, why := coerce(k, *v)
	if why != "" {
		return &ValueError{Knob: knob, Value: clip(v.String(), maxQuote), Reason: why}
	}
	*v = c
	return nil
}

// UnmarshalJSON decodes an audit entry as GET /audit encodes it. Its Old and
// New take the kind the JSON names; an entry without "kind" (from a registry
// that did not send it) leaves them as [Value.UnmarshalJSON] does, waiting for
// their knob. A value the named kind cannot hold is a [*ValueError].
func (e *Entry) UnmarshalJSON(b []byte) error {
	type plain Entry // without this method
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	if err := settleAll(p.Knob, p.Kind, &p.Old, &p.New); err != nil {
		return err
	}
	*e = Entry(p)
	return nil
}

// UnmarshalJSON decodes an outcome as POST / and POST /rollback encode it; its
// values take their kind as an [Entry]'s do (a [*ValueError] if they cannot).
func (o *Outcome) UnmarshalJSON(b []byte) error {
	type plain Outcome // without this method
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	if err := settleAll(p.Knob, p.Kind, &p.Old, &p.New, &p.Requested); err != nil {
		return err
	}
	*o = Outcome(p)
	return nil
}

// settleAll settles vs to kind k, unless k is 0 (the JSON named no kind).
func settleAll(knob string, k Kind, vs ...*Value) error {
	if k == 0 {
		return nil
	}
	for _, v := range vs {
		if err := settle(knob, k, v); err != nil {
			return err
		}
	}
	return nil
}
