package control_test

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// A body in valid UTF-8 can still escape half a surrogate pair ("\ud800"),
// which encoding/json decodes as U+FFFD: a string knob was set to a value the
// client never sent, as with a byte that is not UTF-8. Such a body is a 400
// bad_request; a whole pair, and an escaped backslash before "ud800", pass.
func TestHTTPBodyLoneSurrogateRefused(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	var set []string
	require.NoError(t, reg.RegisterString(control.StringKnob{Name: "mode", Value: "a",
		Apply: func(v string) error { set = append(set, v); return nil }}))
	h := reg.Handler()
	for _, body := range []string{
		`{"who":"op","why":"w","changes":[{"knob":"mode","value":"b\ud800"}]}`,
		`{"who":"op","why":"w","changes":[{"knob":"mode","value":"b\udc00x"}]}`,
		`{"who":"op\ud83d","why":"w","changes":[{"knob":"mode","value":"b"}]}`,
		`{"who":"op","why":"w\ud83d\u0041","changes":[{"knob":"mode","value":"b"}]}`,
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, postJSON("/", body))
		assert.Equal(t, 400, rec.Code, "body %q: %s", body, rec.Body)
		assert.Contains(t, rec.Body.String(), `"bad_request"`)
		_, err := control.DecodeRequest([]byte(body))
		assert.ErrorIs(t, err, control.ErrBadRequest, "body %q", body)
	}
	assert.Empty(t, set, "a refused change reached the component")
	assert.Empty(t, reg.Audit())

	for body, want := range map[string]string{
		`{"who":"op","why":"w","changes":[{"knob":"mode","value":"\ud83d\ude00"}]}`: "\U0001F600",
		`{"who":"op","why":"w","changes":[{"knob":"mode","value":"\\ud800"}]}`:      `\ud800`,
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, postJSON("/", body))
		require.Equal(t, 200, rec.Code, "body %q: %s", body, rec.Body)
		v, err := reg.Get("mode")
		require.NoError(t, err)
		assert.Equal(t, control.String(want), v)
	}
}
