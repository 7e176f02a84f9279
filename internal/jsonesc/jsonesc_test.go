package jsonesc

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestLoneSurrogate(t *testing.T) {
	for _, tc := range []struct {
		give string
		want int
	}{
		{`{"a":"b"}`, -1},
		{`"\ud83d\ude00"`, -1},              // a whole pair
		{`"\\ud800"`, -1},                   // an escaped backslash, then text
		{`"\"\u0041\n\\"`, -1},              // other escapes
		{`"\ud800"`, 1},                     // high half alone, at the end
		{`"x\udc00"`, 2},                    // low half alone
		{`"\ud83d\u0041"`, 1},               // high half, then no low half
		{`"\ud83d\\ude00"`, 1},              // the next escape is a backslash
		{`["ok","\ud83d\ude00\ud800"]`, 19}, // a pair, then a half
	} {
		assert.Equal(t, tc.want, LoneSurrogate([]byte(tc.give)), tc.give)
	}
}

// FuzzLoneSurrogate: for any valid JSON string, LoneSurrogate finds an
// escape exactly when encoding/json's decoding holds a U+FFFD that the text
// does not (neither written nor escaped as \ufffd). The escapes of U+FFFD
// were counted as every `\ufffd` of the text, an escaped backslash's
// "ufffd" too: `"\\ufffd\ud800"` decodes to one U+FFFD, from its lone half,
// which that count took for the text's own, and the target failed on it.
func FuzzLoneSurrogate(f *testing.F) {
	for _, s := range []string{`"a"`, `"\ud800"`, `"\ud83d\ude00"`, `"\\ud800"`, `"\ufffd\udc00"`,
		`"\\ufffd\ud800"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var s string
		if !utf8.ValidString(text) || json.Unmarshal([]byte(text), &s) != nil {
			return
		}
		lone := LoneSurrogate([]byte(text)) >= 0
		own := strings.Count(text, "\uFFFD") + replacementEscapes(text)
		mangled := strings.Count(s, "\uFFFD") > own
		assert.Equal(t, mangled, lone, "%q decodes to %q", text, s)
	})
}

// replacementEscapes counts the \ufffd escapes (either case) of text, a valid
// JSON text: a backslash begins an escape when an even number of backslashes
// precedes it (none, or escaped backslashes).
func replacementEscapes(text string) int {
	n, run := 0, 0 // run: the backslashes just before text[i]
	for i := 0; i < len(text); i++ {
		if text[i] != '\\' {
			run = 0
			continue
		}
		if run%2 == 0 && strings.EqualFold(text[i+1:min(i+6, len(text))], "ufffd") {
			n++
		}
		run++
	}
	return n
}
