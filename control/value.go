package control

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Kind is the type of a knob and of the values it takes.
type Kind int

// Kinds of knobs. Enums start at 1 so the zero Kind is invalid.
const (
	KindInt      Kind = iota + 1 // a signed integer, int64
	KindFloat                    // a finite float64
	KindDuration                 // a time.Duration; JSON "150ms"
	KindBool                     // true or false
	KindString                   // a string, optionally one of a fixed set (an enum)

	// Kinds of a value decoded from JSON before it meets its knob: a JSON number
	// may become an int or a float, a JSON string a duration or a string.
	kindNumber
	kindText
)

// String returns the kind's name as the HTTP API spells it.
func (k Kind) String() string {
	switch k {
	case KindInt:
		return "int"
	case KindFloat:
		return "float"
	case KindDuration:
		return "duration"
	case KindBool:
		return "bool"
	case KindString:
		return "string"
	case kindNumber:
		return "number"
	case kindText:
		return "text"
	}
	return "invalid"
}

// MarshalText encodes the kind's name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Value is a knob setting: an int, float, duration, bool or string. The zero Value
// is invalid (Kind 0). Build one with [Int], [Float], [Duration], [Bool] or
// [String]; read it back with the accessor of its kind. Values are comparable
// with ==.
//
// In JSON an int or float is a number, a duration a string such as "250ms"
// (a JSON number is refused: its unit would be a guess), a bool a bool and a
// string a string. A Value decoded from JSON takes its final kind when it is
// checked against a knob: 3 suits an int or a float knob, "2s" a duration or
// a string knob. A number its kind cannot hold (an int knob's 7.5 or 1e19, a
// float knob's 1e400 or 1e-400, a duration beyond about 292 years or not a whole
// number of nanoseconds, such as "1.5ns") is a *ValueError, not clamped or
// truncated: clamping applies to values of the kind, outside the knob's
// bounds.
type Value struct {
	kind Kind
	i    int64 // KindInt, KindDuration, KindBool (0 or 1)
	f    float64
	s    string // KindString, kindText, kindNumber (the JSON literal)
}

// Int returns an int Value.
func Int(v int64) Value { return Value{kind: KindInt, i: v} }

// Float returns a float Value.
func Float(v float64) Value { return Value{kind: KindFloat, f: v} }

// Duration returns a duration Value.
func Duration(v time.Duration) Value { return Value{kind: KindDuration, i: int64(v)} }

// Bool returns a bool Value.
func Bool(v bool) Value {
	if v {
		return Value{kind: KindBool, i: 1}
	}
	return Value{kind: KindBool}
}

// String returns a string Value (for string and enum knobs).
func String(v string) Value { return Value{kind: KindString, s: v} }

// Kind returns the value's kind.
func (v Value) Kind() Kind { return v.kind }

// IsValid reports whether v holds a value (its Kind is not 0).
func (v Value) IsValid() bool { return v.kind != 0 }

// Int returns an int value, or 0 for another kind.
func (v Value) Int() int64 {
	if v.kind == KindInt {
		return v.i
	}
	return 0
}

// Float returns a float value (an int converted), or 0 for another kind.
func (v Value) Float() float64 {
	switch v.kind {
	case KindFloat:
		return v.f
	case KindInt:
		return float64(v.i)
	}
	return 0
}

// Duration returns a duration value, or 0 for another kind.
func (v Value) Duration() time.Duration {
	if v.kind == KindDuration {
		return time.Duration(v.i)
	}
	return 0
}

// Bool returns a bool value, or false for another kind.
func (v Value) Bool() bool { return v.kind == KindBool && v.i == 1 }

// String formats the value as the HTTP API shows it ("42", "0.5", "250ms",
// "true"); for a string value it is the string itself.
func (v Value) String() string {
	switch v.kind {
	case KindInt:
		return strconv.FormatInt(v.i, 10)
	case KindFloat:
		return strconv.FormatFloat(v.f, 'g', -1, 64)
	case KindDuration:
		return time.Duration(v.i).String()
	case KindBool:
		return strconv.FormatBool(v.i == 1)
	case KindString, kindText, kindNumber:
		return v.s
	}
	return "<invalid>"
}

// MarshalJSON encodes the value as a JSON number, string or bool. A float
// JSON cannot hold (NaN, an infinity) is a *json.UnsupportedValueError, as for
// a float64.
func (v Value) MarshalJSON() ([]byte, error) {
	switch v.kind {
	case KindInt:
		return strconv.AppendInt(nil, v.i, 10), nil
	case KindFloat:
		if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
			// The error encoding/json gives for such a float64.
			return nil, &json.UnsupportedValueError{Value: reflect.ValueOf(v.f), Str: strconv.FormatFloat(v.f, 'g', -1, 64)}
		}
		return strconv.AppendFloat(nil, v.f, 'g', -1, 64), nil
	case KindBool:
		return strconv.AppendBool(nil, v.i == 1), nil
	case KindDuration, KindString, kindText:
		return json.Marshal(v.String())
	case kindNumber:
		return []byte(v.s), nil
	}
	return []byte("null"), nil
}

// UnmarshalJSON decodes a JSON number, string or bool; null and other JSON types
// are errors matching [ErrBadRequest]. The result takes its final kind when
// checked against a knob.
func (v *Value) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return badRequest{errors.New("empty value")}
	}
	switch b[0] {
	case 't', 'f':
		var x bool
		if err := json.Unmarshal(b, &x); err != nil {
			return err
		}
		*v = Bool(x)
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*v = Value{kind: kindText, s: s}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return err
		}
		*v = Value{kind: kindNumber, s: n.String()}
	default:
		return badRequest{fmt.Errorf("a value is a JSON number, string or bool, not %.20s", b)}
	}
	return nil
}

// coerce converts v to kind k, or explains why it cannot.
func coerce(k Kind, v Value) (Value, string) {
	switch k {
	case KindInt:
		switch v.kind {
		case KindInt:
			return v, ""
		case kindNumber:
			if i, ok := intLiteral(v.s); ok {
				return Int(i), ""
			}
			return Value{}, "not an integer in the int64 range"
		}
	case KindFloat:
		switch v.kind {
		case KindFloat, KindInt:
			f := v.Float()
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return Value{}, "not a finite number"
			}
			return Float(f), ""
		case kindNumber:
			// ParseFloat reads a literal too small for a float64 (1e-400)
			// as 0 without an error: a value the client never sent.
			f, err := strconv.ParseFloat(v.s, 64)
			if err != nil || math.IsInf(f, 0) || f == 0 && !zeroLiteral(v.s) {
				return Value{}, "not a number in the float64 range"
			}
			return Float(f), ""
		}
	case KindDuration:
		switch v.kind {
		case KindDuration:
			return v, ""
		case kindNumber:
			return Value{}, "a duration knob takes a string such as \"250ms\", not a number"
		case kindText, KindString:
			if _, err := time.ParseDuration(v.s); err != nil {
				return Value{}, "not a duration such as \"250ms\""
			}
			return exactDuration(v.s)
		}
	case KindBool:
		if v.kind == KindBool {
			return v, ""
		}
	case KindString:
		if v.kind == KindString || v.kind == kindText {
			return String(v.s), ""
		}
	}
	got := v.kind
	if got == kindText { // a JSON string not yet typed: the client sent a string
		got = KindString
	}
	return Value{}, fmt.Sprintf("%s %s knob does not take %s %s", article(k), k, article(got), got)
}

// article is the indefinite article for a kind's name: "an int", "a float".
func article(k Kind) string {
	if n := k.String(); n != "" && strings.ContainsRune("aeiou", rune(n[0])) {
		return "an"
	}
	return "a"
}

// unitNanos is the length in nanoseconds of each unit time.ParseDuration
// takes.
var unitNanos = map[string]uint64{
	"ns": 1, "us": 1e3, "\u00b5s": 1e3, "\u03bcs": 1e3, "ms": 1e6,
	"s": 1e9, "m": 60e9, "h": 3600e9,
}

// exactDuration returns the duration that s, a string time.ParseDuration
// accepts, denotes, computed exactly on its decimal digits, or why it cannot
// be one. ParseDuration drops the part of each number below a nanosecond
// ("1.5ns" read as 1ns, "1.0000000005s" as 1s), and it scales a long
// fraction by a float64 ratio that can lose one (".00000022000000h" read as
// 791999ns, not 792000ns): a value the client never sent, applied without a
// word.
func exactDuration(s string) (Value, string) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+-")
	var sum uint64
	for s != "" {
		i := strings.IndexFunc(s, func(r rune) bool { return r != '.' && (r < '0' || r > '9') })
		if i < 0 {
			break // "0", the one number ParseDuration takes without a unit
		}
		num, rest := s[:i], s[i:]
		j := strings.IndexAny(rest, ".0123456789")
		if j < 0 {
			j = len(rest)
		}
		unit := unitNanos[rest[:j]]
		s = rest[j:]
		v, ok := durationPart(num, unit)
		if !ok {
			return Value{}, "not a whole number of nanoseconds"
		}
		var carry uint64
		if sum, carry = bits.Add64(sum, v, 0); carry != 0 {
			return Value{}, "beyond the range of a duration"
		}
	}
	switch {
	case neg && sum <= 1<<63:
		return Duration(time.Duration(-sum)), "" // -sum wraps to the int64 for sum = 1<<63
	case !neg && sum <= math.MaxInt64:
		return Duration(time.Duration(sum)), ""
	}
	return Value{}, "beyond the range of a duration"
}

// durationPart returns num (digits with an optional point) times unit
// nanoseconds, and false if that is not a whole number or overflows.
func durationPart(num string, unit uint64) (uint64, bool) {
	whole, frac, _ := strings.Cut(num, ".")
	w := uint64(0)
	if whole != "" {
		var err error
		if w, err = strconv.ParseUint(whole, 10, 64); err != nil {
			return 0, false
		}
	}
	hi, v := bits.Mul64(w, unit)
	frac = strings.TrimRight(frac, "0")
	if hi != 0 || frac == "" {
		return v, hi == 0
	}
	// The fraction f/10^n times unit is whole if d = 10^n/gcd(unit, 10^n)
	// divides f; it is then f/d * (unit/gcd), less than unit. The largest
	// unit, 3.6e12 ns, holds 2^13 and 5^11: past 13 digits d is a multiple of
	// 10, which f, ending in a digit that is not 0, is not.
	if len(frac) > 13 {
		return 0, false
	}
	f, _ := strconv.ParseUint(frac, 10, 64)
	p := uint64(1)
	for range len(frac) {
		p *= 10
	}
	g, b := unit, p
	for b != 0 {
		g, b = b, g%b
	}
	if f%(p/g) != 0 {
		return 0, false
	}
	v, carry := bits.Add64(v, f/(p/g)*(unit/g), 0)
	return v, carry == 0
}

// zeroLiteral reports whether the JSON number literal s denotes zero: its
// mantissa has no digit but 0, whatever its exponent.
func zeroLiteral(s string) bool {
	mant, _, _ := strings.Cut(strings.ToLower(s), "e")
	return strings.Trim(mant, "-0.") == ""
}

// intLiteral returns the integer that the JSON number literal s denotes, such
// as 7, 7.0 or 1.5e3, and false if s is not an integer or does not fit an
// int64. It works on the decimal digits, exactly: a float64 holds 53 bits, so
// parsing one rounded 9007199254740993.0 to 9007199254740992 and
// 4503599627370496.5 or 1e-400 to integers.
func intLiteral(s string) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	mant, exp := strings.TrimPrefix(s, "-"), ""
	if i := strings.IndexAny(mant, "eE"); i >= 0 {
		mant, exp = mant[:i], mant[i+1:]
	}
	whole, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	if digits == "" {
		return 0, true // zero, whatever its exponent
	}
	e := 0
	if exp != "" {
		x, err := strconv.ParseInt(exp, 10, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, false
		}
		// Beyond these bounds the outcome no longer changes: a smaller
		// exponent leaves a fraction (digits has fewer trailing zeros than
		// s has bytes), a larger one overflows (it leaves more than 19
		// digits once the fraction's digits are shifted in front of the
		// point: 0.001e5 is 100, so the bound counts them).
		e = int(min(max(x, -int64(len(s))-1), int64(len(frac))+20))
	}
	e -= len(frac)
	trimmed := strings.TrimRight(digits, "0")
	e += len(digits) - len(trimmed)
	if e < 0 || len(trimmed)+e > 19 {
		return 0, false
	}
	u, err := strconv.ParseUint(trimmed+strings.Repeat("0", e), 10, 64)
	switch {
	case err != nil:
		return 0, false
	case neg && u <= 1<<63:
		return int64(-u), true // -u wraps to the int64 for u = 1<<63
	case !neg && u <= math.MaxInt64:
		return int64(u), true
	}
	return 0, false
}
