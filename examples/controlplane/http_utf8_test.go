package controlplane_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/rollout"
)

// A POST body that is not UTF-8 was decoded with each bad byte replaced by
// U+FFFD, so POST /api/rollout published a rule for a service the operator
// never named ("s\xff" as "s\uFFFD", which SetRollout refuses as given), and
// POST /api/gateways added a gateway under a mangled ID. Such a body is a 400
// that changes nothing; so is a body in valid UTF-8 escaping half a surrogate
// pair, which encoding/json decodes as U+FFFD too.
func TestPostBodyNotUTF8Rejected(t *testing.T) {
	p, _ := twoRegions(t, 1.5)
	require.NoError(t, p.SetRollout(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}}}))
	_, v := p.Routes()
	n := len(p.Gateways())
	h := p.Handler()
	for _, tt := range []struct{ path, body string }{
		{"/api/rollout", `{"Rules": [{"Service": "s` + "\xff" + `", "Percent": 50}]}`},
		{"/api/rollout", `{"Rules": [{"Service": "s", "Percent": 50, "Salt": "` + "\x8a" + `"}]}`},
		{"/api/gateways", `{"id": "eu-9` + "\xfe" + `", "region": "eu", "resp": "127.0.0.1:7109", "http": "127.0.0.1:7209", "cores": 1}`},
		// Valid UTF-8 escaping half a surrogate pair, decoded as U+FFFD too.
		{"/api/rollout", `{"Rules": [{"Service": "s", "Prefix": "k\ud800", "Percent": 50}]}`},
		{"/api/rollout", `{"Rules": [{"Service": "s", "Percent": 50, "Salt": "\uDC00x"}]}`},
		{"/api/rollout", `{"Rules": [{"Service": "s", "Percent": 50, "Salt": "\ud800\u0041"}]}`},
		{"/api/rollout", `{"Rules": [{"Service": "s", "Percent": 50, "Salt": "\ud800\ud800"}]}`},
		{"/api/gateways", `{"id": "eu-9\ud83d", "region": "eu", "resp": "127.0.0.1:7109", "http": "127.0.0.1:7209", "cores": 1}`},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, postJSON(tt.path, tt.body))
		assert.Equal(t, http.StatusBadRequest, rec.Code, "%s %q: %s", tt.path, tt.body, rec.Body.String())
	}
	r, v2 := p.Routes()
	require.Equal(t, v, v2, "a rejected body published a version")
	require.Equal(t, []rollout.Rule{{Service: "s", Percent: 100}}, r.Rollout.Config().Rules)
	require.Len(t, p.Gateways(), n, "a gateway was added")

	// A whole pair, an escaped backslash before "ud800" and other escapes pass.
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, postJSON("/api/rollout",
		`{"Rules": [{"Service": "s", "Prefix": "\ud83d\ude00\\ud800\"\u00e9", "Percent": 50}]}`))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	r, _ = p.Routes()
	require.Equal(t, "\U0001F600\\ud800\"\u00e9", r.Rollout.Config().Rules[0].Prefix)
}
