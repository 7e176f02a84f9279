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

// The router's own refusals (no such path, not that method) answer the same
// JSON error shape as the handlers' errors, 405 with an Allow header, and paths
// match exactly: a trailing slash or a doubled one is another path, not a
// redirect. HEAD is served wherever GET is, without the body.
func TestHandlerRouterErrors(t *testing.T) {
	p, _ := twoRegions(t, 1.5)
	h := p.Handler()
	tests := []struct {
		give       string // method and path
		wantStatus int
		wantAllow  string
	}{
		{"GET /api/nothing", 404, ""},
		{"GET /api", 404, ""},
		{"GET /api/", 404, ""},
		{"GET /index.html", 404, ""},
		{"GET /api/state/", 404, ""},
		{"GET /api/routes/", 404, ""},
		{"GET //api/state", 404, ""},
		{"GET /api//state", 404, ""},
		{"POST /api/rollout/", 404, ""},
		{"POST /api/drain/", 404, ""},
		{"POST /api/drain/eu-1/", 404, ""},
		{"POST /api/drain/eu-1/x", 404, ""},
		{"DELETE /api/gateways/", 404, ""},
		{"POST /", 405, "GET, HEAD"},
		{"PUT /api/state", 405, "GET, HEAD"},
		{"POST /api/routes", 405, "GET, HEAD"},
		{"DELETE /api/routes", 405, "GET, HEAD"},
		{"GET /api/rollout", 405, "POST"},
		{"HEAD /api/rollout", 405, "POST"},
		{"OPTIONS /api/rollout", 405, "POST"},
		{"GET /api/gateways", 405, "POST"},
		{"GET /api/gateways/eu-1", 405, "DELETE"},
		{"GET /api/drain/eu-1", 405, "POST"},
		{"DELETE /api/undrain/eu-1", 405, "POST"},
	}
	for _, tt := range tests {
		method, path, _ := strings.Cut(tt.give, " ")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		assert.Equal(t, tt.wantStatus, rec.Code, "%s: %s", tt.give, rec.Body.String())
		assert.Equal(t, tt.wantAllow, rec.Header().Get("Allow"), tt.give)
		assert.Equal(t, "application/json", rec.Header().Get("Content-Type"), tt.give)
		var body map[string]string
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), "%s: %q", tt.give, rec.Body.String())
		assert.Contains(t, body["error"], "controlplane: ", tt.give)
	}
}

// HEAD answers what GET does, without the body.
func TestHandlerHead(t *testing.T) {
	p, _ := twoRegions(t, 1.5)
	h := p.Handler()
	for _, path := range []string{"/", "/dashboard.js", "/api/state", "/api/routes"} {
		get := httptest.NewRecorder()
		h.ServeHTTP(get, httptest.NewRequest(http.MethodGet, path, nil))
		head := httptest.NewRecorder()
		h.ServeHTTP(head, httptest.NewRequest(http.MethodHead, path, nil))
		assert.Equal(t, http.StatusOK, head.Code, path)
		assert.Equal(t, get.Header().Get("Content-Type"), head.Header().Get("Content-Type"), path)
		assert.Zero(t, head.Body.Len(), "%s: HEAD wrote a body", path)
	}
}

// A POST must declare its body as JSON: a page on another origin can make a
// browser POST text/plain, a form or no body at all to a loopback plane without
// asking, but not application/json. Such a POST changes nothing.
func TestHandlerPostNeedsJSON(t *testing.T) {
	p, _ := twoRegions(t, 1.5)
	h := p.Handler()
	_, v := p.Routes()
	rollout := `{"Rules":[{"Service":"s","Percent":100}],"Kill":true}`
	for _, tt := range []struct{ path, body, ctype string }{
		{"/api/rollout", rollout, ""},
		{"/api/rollout", rollout, "text/plain;charset=UTF-8"},
		{"/api/rollout", rollout, "application/x-www-form-urlencoded"},
		{"/api/rollout", rollout, "multipart/form-data; boundary=x"},
		{"/api/rollout", rollout, "application/json-seq"},
		{"/api/gateways", `{"id":"eu-9","region":"eu","resp":"127.0.0.1:7999","http":"127.0.0.1:8999","cores":1}`, "text/plain"},
		{"/api/drain/eu-1", "", ""},
		{"/api/drain/eu-1", "", "text/plain"},
		{"/api/undrain/eu-1", "", "application/x-www-form-urlencoded"},
	} {
		req := httptest.NewRequest(http.MethodPost, tt.path, strings.NewReader(tt.body))
		if tt.ctype != "" {
			req.Header.Set("Content-Type", tt.ctype)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		assert.Equal(t, http.StatusUnsupportedMediaType, rec.Code, "POST %s as %q: %s", tt.path, tt.ctype, rec.Body.String())
		assert.Contains(t, rec.Body.String(), `"error":"controlplane: `, tt.path)
	}
	_, v2 := p.Routes()
	require.Equal(t, v, v2, "a refused POST published a version")
	assert.Empty(t, p.State().Draining)

	for _, ctype := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON"} {
		req := httptest.NewRequest(http.MethodPost, "/api/drain/eu-1", nil)
		req.Header.Set("Content-Type", ctype)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		assert.Equal(t, http.StatusOK, rec.Code, "as %q: %s", ctype, rec.Body.String())
	}
}
