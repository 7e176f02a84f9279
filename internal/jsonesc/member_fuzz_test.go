package jsonesc

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// FuzzRepeatedMember: RepeatedMember reads request bodies and configuration
// files, so any bytes may reach it. On any input it must not panic. On a
// valid JSON text it agrees with repeatedRef, a recursive reading of the same
// tokens that checks each object's names when its value ends, rather than
// RepeatedMember's explicit stack of objects and arrays; and nesting the text
// as an array's element or an object's member value changes nothing.
func FuzzRepeatedMember(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"A":2}`, `[{"p":1},{"q":1,"q":2}]`, `{"a":{"x":1,"X":2},"a":3}`,
		`{"a":"a","b":"a"}`, `[[],{},[{"k":[]}],{"k":1,"k":{}}]`, `"a"`, `{"a":[1,{"b":2}],"b":3}`,
		`["k",0,"k",{"k":1}]`, `{"a":`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := RepeatedMember([]byte(text)) // must not panic, whatever the bytes
		if !json.Valid([]byte(text)) {
			return
		}
		if want := repeatedRef(text); got != want {
			t.Fatalf("%q: RepeatedMember %q, reference %q", text, got, want)
		}
		for _, outer := range []string{`[` + text + `]`, `{"outer":` + text + `}`, `[0,` + text + `,{}]`} {
			if g := RepeatedMember([]byte(outer)); g != got {
				t.Fatalf("%q: RepeatedMember %q, nested in %q: %q", text, got, outer, g)
			}
		}
	})
}

// errRepeated stops repeatedRef's walk at the first repeated name.
var errRepeated = errors.New("repeated")

// repeatedRef is the reference for RepeatedMember on a valid JSON text: it
// reads one value recursively and returns the first name that an earlier
// member of its object matches without regard to case.
func repeatedRef(text string) string {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var found string
	var value func() error
	value = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('['):
			for dec.More() {
				if err := value(); err != nil {
					return err
				}
			}
		case json.Delim('{'):
			var names []string
			for dec.More() {
				tok, err := dec.Token()
				if err != nil {
					return err
				}
				name := tok.(string)
				for _, seen := range names {
					if strings.EqualFold(seen, name) {
						found = name
						return errRepeated
					}
				}
				names = append(names, name)
				if err := value(); err != nil {
					return err
				}
			}
		default:
			return nil
		}
		_, err = dec.Token() // the closing delimiter
		return err
	}
	_ = value()
	return found
}
