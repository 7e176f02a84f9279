package controlplane_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/rollout"
)

// encoding/json keeps the last of two members of one name, matched to a
// field without regard to case, so POST /api/rollout with "Kill": true and
// then "kill": false switched off the kill switch the body reads as switching
// on, and a rule's Percent named twice took the second. Package control
// refuses such a body; the plane's API answers it 400 too, and nothing
// changes.
func TestPostRepeatedMemberRejected(t *testing.T) {
	p, _ := twoRegions(t, 1.5)
	in := rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 40}}, Kill: true}
	require.NoError(t, p.SetRollout(in))
	_, v := p.Routes()
	n := len(p.Gateways())
	h := p.Handler()
	for _, tt := range []struct{ path, body string }{
		{"/api/rollout", `{"Rules": [{"Service": "s", "Percent": 40}], "Kill": true, "kill": false}`},
		{"/api/rollout", `{"Rules": [{"Service": "s", "Percent": 0, "percent": 40}], "Kill": true}`},
		{"/api/rollout", `{"Rules": [{"Service": "s", "Percent": 40}], "Kill": true, "Rules": []}`},
		{"/api/gateways", `{"id": "eu-9", "region": "eu", "resp": "127.0.0.1:7109", "http": "127.0.0.1:7209", "cores": 1, "Cores": 8}`},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, postJSON(tt.path, tt.body))
		require.Equal(t, http.StatusBadRequest, rec.Code, "%s %s: %s", tt.path, tt.body, rec.Body.String())
	}
	r, v2 := p.Routes()
	require.Equal(t, v, v2, "a rejected body published a version")
	require.Equal(t, in, r.Rollout.Config(), "the rollout in force changed")
	require.Len(t, p.Gateways(), n, "a gateway was added")

	// One name per object: the same name in two objects is fine.
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, postJSON("/api/rollout",
		`{"Rules": [{"Service": "s", "Percent": 40, "Regions": ["eu"]}, {"Service": "t", "Percent": 10, "Regions": []}], "Kill": false}`))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	r, _ = p.Routes()
	require.Len(t, r.Rollout.Config().Rules, 2)
}
