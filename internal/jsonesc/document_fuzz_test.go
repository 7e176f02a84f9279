package jsonesc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzLoneSurrogateDocument: as FuzzLoneSurrogate, for any valid JSON text
// rather than one string, which is what the callers pass (a request body, a
// configuration file): member names, nested values and the text between
// strings too. LoneSurrogate must not panic on it, and finds an escape
// exactly when a string the decoder returns (a name or a value, read as
// tokens so that a repeated name is not lost in a map) holds a U+FFFD the
// text neither writes nor escapes. Numbers are read as json.Number: as
// float64, a valid number out of its range (1e999) failed the target.
func FuzzLoneSurrogateDocument(f *testing.F) {
	for _, s := range []string{`{}`, `{"a\ud800":1}`, `[1,"\ud83d\ude00",{"k":["\udc00"]}]`,
		`{"a":"\\","b":"\ud800"}`, `{"x":"\\\ud83d\ude00"}`, ` "\ufffd" `, `[true,null,-1.5e3]`, `[1e999]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) || !json.Valid([]byte(text)) {
			return
		}
		decoded := 0
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber() // a valid number beyond float64 (1e999) is no error
		for {
			tok, err := dec.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%q: valid, but its tokens fail: %v", text, err)
			}
			if s, ok := tok.(string); ok {
				decoded += strings.Count(s, "\uFFFD")
			}
		}
		own := strings.Count(text, "\uFFFD") + replacementEscapes(text)
		at := LoneSurrogate([]byte(text))
		if (at >= 0) != (decoded > own) {
			t.Fatalf("%q: LoneSurrogate %d, decoded U+FFFD %d, written or escaped %d", text, at, decoded, own)
		}
		if at >= 0 && !bytes.HasPrefix([]byte(text[at:]), []byte(`\u`)) {
			t.Fatalf("%q: offset %d is not an escape", text, at)
		}
	})
}

// TestLoneSurrogateAgreesWithDecoder: every string of up to four pieces
// from escapes that matter here (both halves, a whole pair's, an escaped
// backslash before a u, U+FFFD written and escaped, in either case), set as
// a member name and as a value, is found exactly when the decoder returns a
// U+FFFD the text does not hold. The fuzz target reaches the same texts
// only by chance.
func TestLoneSurrogateAgreesWithDecoder(t *testing.T) {
	pieces := []string{`\ud800`, `\uDC00`, `\ud83d`, `\ude00`, `\\`, `u`, `\u0041`, `\uFFFD`, "\uFFFD", `\"`}
	var walk func(prefix string, left int)
	walk = func(prefix string, left int) {
		for _, text := range []string{`"` + prefix + `"`, `{"` + prefix + `":"` + prefix + `"}`} {
			decoded := 0
			dec := json.NewDecoder(strings.NewReader(text))
			for {
				tok, err := dec.Token()
				if err != nil {
					break
				}
				if s, ok := tok.(string); ok {
					decoded += strings.Count(s, "\uFFFD")
				}
			}
			own := strings.Count(text, "\uFFFD") + replacementEscapes(text)
			if at := LoneSurrogate([]byte(text)); (at >= 0) != (decoded > own) {
				t.Fatalf("%s: LoneSurrogate %d, decoded U+FFFD %d, written or escaped %d", text, at, decoded, own)
			}
		}
		if left == 0 {
			return
		}
		for _, p := range pieces {
			walk(prefix+p, left-1)
		}
	}
	walk("", 4)
}
