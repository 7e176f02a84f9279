package control_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// FuzzWireJSON feeds arbitrary bytes to the public JSON decoders a client of
// the handler runs on what it reads (Info from GET /knobs, Entry from GET
// /audit, Outcome from POST /). Invariants: no panic; whatever decodes
// encodes, and decodes again into an equal value. A field the input left out
// holds the zero Value, which encodes as null and which the decoder refuses,
// as documented; the registry never sends one, so such inputs are skipped.
func FuzzWireJSON(f *testing.F) {
	for _, s := range []string{
		`{"name":"n","kind":"int","value":5,"min":0,"max":9}`,
		`{"name":"d","kind":"duration","value":"250ms","min":"1ms","max":"1s"}`,
		`{"seq":1,"batch":1,"time":"2024-01-01T00:00:00Z","knob":"f","kind":"float","old":0.5,"new":1}`,
		`{"knob":"s","kind":"string","old":"a","new":"b","requested":"b","clamped":true}`,
		`{"knob":"b","kind":"bool","old":true,"new":false}`,
		`{"knob":"x","old":1e300,"new":"5h"}`,
		`{"kind":"float","value":"nope"}`, `null`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeTwice[control.Info](t, data)
		decodeTwice[control.Entry](t, data)
		decodeTwice[control.Outcome](t, data)
		decodeTwice[control.Value](t, data)
	})
}

func decodeTwice[T any](t *testing.T, data []byte) {
	t.Helper()
	var first T
	if json.Unmarshal(data, &first) != nil {
		return
	}
	enc, err := json.Marshal(first)
	require.NoError(t, err, "%T decoded from %q does not encode", first, data)
	if bytes.Contains(enc, []byte(":null")) {
		return // a Value the input did not give
	}
	var second T
	require.NoError(t, json.Unmarshal(enc, &second), "%T: %s does not decode", first, enc)
	require.Equal(t, first, second, "%T: %q -> %s", first, data, enc)
}
