package control

import (
	"encoding/json"
	"fmt"
)

// UnmarshalText decodes a kind name written by [Kind.MarshalText] ("int",
// "float", "duration", "bool", "string"; "invalid" for the zero Kind). Other
// names are errors.
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
	return fmt.Errorf("control: unknown kind %q", b)
}

// UnmarshalJSON decodes an Info as [Registry.Knobs] and GET /knobs encode it.
// Its Value, Min and Max take the kind the JSON names, so that they equal the
// values the registry reports (a JSON 3 of a float knob is Float(3), not a
// number waiting for its knob); a value that kind cannot hold is an error.
func (in *Info) UnmarshalJSON(b []byte) error {
	type plain Info // without this method
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	for _, v := range []*Value{&p.Value, p.Min, p.Max} {
		if err := settle(p.Kind, v); err != nil {
			return fmt.Errorf("control: knob %q: %w", p.Name, err)
		}
	}
	*in = Info(p)
	return nil
}

// settle gives a value decoded from JSON the kind k (a nil v is left alone).
func settle(k Kind, v *Value) error {
	if v == nil {
		return nil
	}
	c, why := coerce(k, *v)
	if why != "" {
		return fmt.Errorf("value %s: %s", clip(v.String(), maxQuote), why)
	}
	*v = c
	return nil
}
