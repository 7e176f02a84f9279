package controlplane_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/rollout"
)

// A body of valid UTF-8 can still carry a string that is not: a \u escape
// of half a surrogate pair, which encoding/json decodes as U+FFFD. So POST
// /api/rollout published a rule for a prefix the operator never named, and
// POST /api/gateways added a gateway under a mangled ID, as bad bytes did
// before bodies had to be UTF-8. Such a body is a 400 that changes nothing;
// a whole pair, or any other escape, is fine.
func TestPostLoneSurrogateRejected(t *testing.T) {
	p, _ := twoRegions(t, 1.5)
	require.NoError(t, p.SetRollout(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}}}))
	_, v := p.Routes()
	n := len(p.Gateways())
	h := p.Handler()
	for _, tt := range []struct{ path, body string }{
		{"/api/rollout", `{"Rules": [{"Service": "s", "Prefix": "k\ud800", "Percent": 50}]}`},
		{"/api/rollout", `{"Rules": [{"Service": "s", "Percent": 50, "Salt": "\uDC00x"}]}`},
		{"/api/rollout", `{"Rules": [{"Service": "s", "Percent": 50, "Salt": "\ud800\u0041"}]}`},
		{"/api/rollout", `{"Rules": [{"Service": "s", "Percent": 50, "Salt": "\ud800\ud800"}]}`},
		{"/api/gateways", `{"id": "eu-9\ud83d", "region": "eu", "resp": "127.0.0.1:7109", "http": "127.0.0.1:7209", "cores": 1}`},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, postJSON(tt.path, tt.body))
		assert.Equal(t, http.StatusBadRequest, rec.Code, "%s %s: %s", tt.path, tt.body, rec.Body.String())
	}
	r, v2 := p.Routes()
	require.Equal(t, v, v2, "a rejected body published a version")
	require.Equal(t, []rollout.Rule{{Service: "s", Percent: 100}}, r.Rollout.Config().Rules)
	require.Len(t, p.Gateways(), n, "a gateway was added")

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, postJSON("/api/rollout",
		`{"Rules": [{"Service": "s", "Prefix": "\ud83d\ude00\\ud800\"\u00e9", "Percent": 50}]}`))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	r, _ = p.Routes()
	require.Equal(t, "\U0001F600\\ud800\"\u00e9", r.Rollout.Config().Rules[0].Prefix)
}
