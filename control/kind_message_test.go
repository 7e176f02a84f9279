package control

import "testing"

// TestWrongKindMessage: a value of the wrong kind is refused with a message
// that reads as English ("an int knob does not take a bool"; it said "a int"),
// and names what the client sent: a JSON string is "a string" (it said "a text",
// the name of the untyped kind a JSON string has before it meets a knob).
func TestWrongKindMessage(t *testing.T) {
	for _, tt := range []struct {
		knob Kind
		v    Value
		want string
	}{
		{KindInt, Bool(true), "an int knob does not take a bool"},
		{KindFloat, Bool(true), "a float knob does not take a bool"},
		{KindBool, Int(1), "a bool knob does not take an int"},
		{KindInt, Value{}, "an int knob does not take an invalid"},
		{KindDuration, Bool(false), "a duration knob does not take a bool"},
		{KindInt, Value{kind: kindText, s: "5"}, "an int knob does not take a string"},
		{KindBool, Value{kind: kindText, s: "true"}, "a bool knob does not take a string"},
		{KindBool, Value{kind: kindNumber, s: "1"}, "a bool knob does not take a number"},
	} {
		if _, got := coerce(tt.knob, tt.v); got != tt.want {
			t.Errorf("%v knob, %v: %q, want %q", tt.knob, tt.v.kind, got, tt.want)
		}
	}
}
