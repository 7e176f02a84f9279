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
// does not (neither written nor escaped as \ufffd).
func FuzzLoneSurrogate(f *testing.F) {
	for _, s := range []string{`"a"`, `"\ud800"`, `"\ud83d\ude00"`, `"\\ud800"`, `"\ufffd\udc00"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var s string
		if !utf8.ValidString(text) || json.Unmarshal([]byte(text), &s) != nil {
			return
		}
		lone := LoneSurrogate([]byte(text)) >= 0
		own := strings.Count(text, "\uFFFD") + strings.Count(strings.ToLower(text), `\ufffd`)
		mangled := strings.Count(s, "\uFFFD") > own
		assert.Equal(t, mangled, lone, "%q decodes to %q", text, s)
	})
}
