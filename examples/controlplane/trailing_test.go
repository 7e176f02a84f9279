package controlplane_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// A body or document followed by a stray closing bracket is not one JSON
// value: json.Decoder.More reports false before '}' and ']', so it must not be
// the trailing-data check.
func TestTrailingCloserIsBadJSON(t *testing.T) {
	p, ft := twoRegions(t, 1.5)
	k := 0
	run(t, p, ft, &k, 1)
	h := p.Handler()
	for _, tail := range []string{"}", "]", " }}", "x"} {
		for _, tt := range []struct{ path, body string }{
			{"/api/rollout", `{"Rules":[{"Service":"s","Percent":25}]}`},
			{"/api/gateways", `{"id":"eu-9","region":"eu","resp":"127.0.0.1:7999","http":"127.0.0.1:8999","cores":1}`},
		} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, postJSON(tt.path, tt.body+tail))
			assert.Equal(t, http.StatusBadRequest, rec.Code, "POST %s with %q after the value: %s", tt.path, tail, rec.Body.String())
		}
		_, _, err := controlplane.DecodeRoutes(append(wireOf(t, p), tail...))
		assert.ErrorIs(t, err, controlplane.ErrBadRoutes, "routes document with %q after it", tail)
	}
	_, _, err := controlplane.DecodeRoutes(append(wireOf(t, p), " \n"...))
	require.NoError(t, err, "trailing white space is fine")
}
