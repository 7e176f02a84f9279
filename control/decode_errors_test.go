package control_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// TestDecodeErrorsAreTyped: a JSON value that is not a number, string or
// bool matches ErrBadRequest wherever a Value decodes it, and a value the
// kind named in an Info, Entry or Outcome cannot hold is a *ValueError
// naming the knob, as the registry's own refusal of that value is.
func TestDecodeErrorsAreTyped(t *testing.T) {
	tests := []struct {
		name     string
		give     func() error
		wantBad  bool   // errors.Is(err, ErrBadRequest)
		wantKnob string // errors.As(err, **ValueError) with this Knob
	}{
		{"Value null", func() error { var v control.Value; return json.Unmarshal([]byte(`null`), &v) }, true, ""},
		{"Value array", func() error { var v control.Value; return json.Unmarshal([]byte(`[1]`), &v) }, true, ""},
		{"Value empty", func() error { var v control.Value; return v.UnmarshalJSON(nil) }, true, ""},
		{"Request value object", func() error {
			var r control.Request
			return json.Unmarshal([]byte(`{"changes":[{"knob":"k","value":{}}]}`), &r)
		}, true, ""},
		{"Info float for int", func() error {
			var in control.Info
			return json.Unmarshal([]byte(`{"name":"k","kind":"int","value":1.5}`), &in)
		}, false, "k"},
		{"Entry text for bool", func() error {
			var e control.Entry
			return json.Unmarshal([]byte(`{"knob":"b","kind":"bool","old":"x","new":true}`), &e)
		}, false, "b"},
		{"Outcome requested past int64", func() error {
			var o control.Outcome
			return json.Unmarshal([]byte(`{"knob":"n","kind":"int","old":1,"new":1,"requested":1e30}`), &o)
		}, false, "n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.give()
			require.Error(t, err)
			assert.Equal(t, tt.wantBad, errors.Is(err, control.ErrBadRequest), "%v", err)
			var ve *control.ValueError
			assert.Equal(t, tt.wantKnob != "", errors.As(err, &ve), "%v", err)
			if ve != nil {
				assert.Equal(t, tt.wantKnob, ve.Knob)
			}
		})
	}
}

// TestDecodeRequestSaysBadRequestOnce: a Value's refusal reached through
// DecodeRequest still matches ErrBadRequest, and its text names it once.
func TestDecodeRequestSaysBadRequestOnce(t *testing.T) {
	_, err := control.DecodeRequest([]byte(`{"changes":[{"knob":"k","value":[1]}]}`))
	require.ErrorIs(t, err, control.ErrBadRequest)
	assert.Equal(t, 1, strings.Count(err.Error(), "bad request"), "%v", err)
	assert.Contains(t, err.Error(), "a value is a JSON number, string or bool")
}
