package jsonesc_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tierkit/tierkit/internal/jsonesc"
)

// benchBody is a control change request of 32 members with escapes, the
// shape of body the callers check after decoding it.
var benchBody = func() []byte {
	var sb strings.Builder
	sb.WriteString(`{"changes":[`)
	for i := range 32 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"knob":"shed.max_queue_\u00e9\ud83d\ude00","value":{"int":1024},"note":"a \"quoted\" note\\n"}`)
	}
	sb.WriteString(`],"dry_run":false}`)
	return []byte(sb.String())
}()

var sink int

// BenchmarkLoneSurrogate: the scan every decoded body pays, against the
// decode it follows (impl=decode, the baseline).
func BenchmarkLoneSurrogate(b *testing.B) {
	b.Run("impl=jsonesc", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(benchBody)))
		for b.Loop() {
			sink += jsonesc.LoneSurrogate(benchBody)
		}
	})
	b.Run("impl=decode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(benchBody)))
		for b.Loop() {
			var v any
			if err := json.Unmarshal(benchBody, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRepeatedMember: a second pass over a decoded body, as a
// json.Decoder's tokens.
func BenchmarkRepeatedMember(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchBody)))
	for b.Loop() {
		sink += len(jsonesc.RepeatedMember(benchBody))
	}
}
