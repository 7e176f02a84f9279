package control_test

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// A body that is not UTF-8 was decoded with each bad byte replaced by U+FFFD:
// a string knob's "b\xff" applied as "b\uFFFD", a value the client never sent,
// and a who or why that the Go API refuses was audited mangled. Such a body is
// a 400 bad_request (DecodeRequest: ErrBadRequest), and nothing changes; so
// is a body in valid UTF-8 escaping half a surrogate pair ("\ud800").
func TestHTTPBodyNotUTF8Refused(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	var set []string
	require.NoError(t, reg.RegisterString(control.StringKnob{Name: "mode", Value: "a",
		Apply: func(v string) error { set = append(set, v); return nil }}))
	h := reg.Handler()
	for _, body := range []string{
		`{"who":"op","why":"w","changes":[{"knob":"mode","value":"b` + "\xff" + `"}]}`,
		`{"who":"op` + "\xfe" + `","why":"w","changes":[{"knob":"mode","value":"b"}]}`,
		`{"who":"op","why":"w` + "\xc3" + `","changes":[{"knob":"mode","value":"b"}]}`,
		// Valid UTF-8 escaping half a surrogate pair, which encoding/json
		// decodes as U+FFFD too.
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
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, postJSON("/rollback", `{"who":"op`+"\xff"+`"}`))
	assert.Equal(t, 400, rec.Code, rec.Body.String())

	assert.Empty(t, set, "a refused change reached the component")
	assert.Empty(t, reg.Audit())
	v, err := reg.Get("mode")
	require.NoError(t, err)
	assert.Equal(t, control.String("a"), v)

	// A whole escaped pair, and an escaped backslash before "ud800", pass.
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
