package controlplane_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/rollout"
)

// A null member decoded as its type's zero value without an error, so
// POST /api/rollout with "Kill": null switched the kill switch off, and a
// rule's "Percent": null or "Prefix": null read as 0% or every key: a null
// where a string, number or boolean belongs must be a 400 that changes
// nothing. A null list (Rules, Regions: what GET /api/state serves for an
// empty one) stays the empty list.
func TestRolloutNullMemberRejected(t *testing.T) {
	p, _ := twoRegions(t, 1.5)
	in := rollout.Config{Rules: []rollout.Rule{{Service: "s", Prefix: "p:", Percent: 40}}, Kill: true}
	require.NoError(t, p.SetRollout(in))
	_, v := p.Routes()
	h := p.Handler()
	for _, body := range []string{
		`{"Rules": [{"Service": "s", "Prefix": "p:", "Percent": 40}], "Kill": null}`,
		`{"Rules": [{"Service": "s", "Prefix": "p:", "Percent": null}], "Kill": true}`,
		`{"Rules": [{"Service": "s", "Prefix": null, "Percent": 40}], "Kill": true}`,
		`{"Rules": [null], "Kill": true}`,
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, postJSON("/api/rollout", body))
		require.Equal(t, http.StatusBadRequest, rec.Code, "body %s: %s", body, rec.Body.String())
	}
	r, v2 := p.Routes()
	require.Equal(t, v, v2, "a rejected body published a version")
	require.Equal(t, in, r.Rollout.Config(), "the rollout in force changed")

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, postJSON("/api/rollout",
		`{"Rules": [{"Service": "s", "Prefix": "p:", "Percent": 40, "Regions": null}], "Kill": false}`))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	r, _ = p.Routes()
	require.False(t, r.Rollout.Config().Kill)
}
