package controlplane_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIfMatchEmptyRefused: an If-Match field sent with no value (a script
// whose tag variable was empty: "If-Match: ") was read as no If-Match, and
// the change applied unconditionally although the client meant to condition
// it. RFC 9110 (13.1.1) makes If-Match "*" or a list of entity tags, true
// only if a listed tag matches: an empty list matches none, so the change is
// refused with 412 and the current tag, as a stale one is. A request without
// the field still applies unconditionally.
func TestIfMatchEmptyRefused(t *testing.T) {
	p, _ := twoRegions(t, 1)
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()
	send := func(method, path, body string, ifMatch []string) (int, map[string]string) {
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if ifMatch != nil {
			req.Header["If-Match"] = ifMatch
		}
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var out map[string]string
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	for _, empty := range [][]string{{""}, {"  "}, {"", ""}} {
		code, body := send(http.MethodPost, "/api/rollout", `{"Rules": [{"Service": "app", "Percent": 50}]}`, empty)
		require.Equal(t, http.StatusPreconditionFailed, code, "If-Match %q: %v", empty, body)
		assert.Equal(t, p.State().ChangeTag, body["change_tag"])
		assert.Empty(t, p.State().Rollout.Rules, "a change conditioned on no tag applied")

		code, body = send(http.MethodPost, "/api/drain/eu-1", `{}`, empty)
		require.Equal(t, http.StatusPreconditionFailed, code, "If-Match %q: %v", empty, body)
		code, body = send(http.MethodDelete, "/api/gateways/eu-2", "", empty)
		require.Equal(t, http.StatusPreconditionFailed, code, "If-Match %q: %v", empty, body)
		require.Len(t, p.Gateways(), 6)
		assert.Empty(t, p.State().Draining)
	}
	code, body := send(http.MethodPost, "/api/rollout", `{"Rules": [{"Service": "app", "Percent": 50}]}`, nil)
	require.Equal(t, http.StatusOK, code, "no If-Match: %v", body)
	require.Len(t, p.State().Rollout.Rules, 1)
}
