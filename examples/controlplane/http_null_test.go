package controlplane_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/rollout"
)

// A POST body of JSON null decoded into the zero rollout.Config without an
// error, so POST /api/rollout with "null" answered 200 and replaced the rules
// in force by none (everything direct): a bad body must be a 400 that changes
// nothing.
func TestRolloutNullBodyRejected(t *testing.T) {
	p, _ := twoRegions(t, 1.5)
	require.NoError(t, p.SetRollout(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}}}))
	_, v := p.Routes()
	h := p.Handler()
	for _, body := range []string{"null", " null \n"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, postJSON("/api/rollout", body))
		require.Equal(t, http.StatusBadRequest, rec.Code, "body %q: %s", body, rec.Body.String())
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, postJSON("/api/gateways", "null"))
	require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
	r, v2 := p.Routes()
	require.Equal(t, v, v2, "a rejected body published a version")
	require.Len(t, r.Rollout.Config().Rules, 1, "the rules in force were replaced")
}
