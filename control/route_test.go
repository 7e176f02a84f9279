package control_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// Every answer of the HTTP API is JSON, the router's refusals included: an
// unknown path is 404 not_found and a wrong method 405 method_not_allowed
// with an Allow header, in the shape of the API's other errors (not net/http's
// plain-text pages). Paths match exactly; HEAD is served where GET is.
func TestHTTPRoutes(t *testing.T) {
	fx := newFixture(t, control.Config{})
	h := http.StripPrefix("/control", fx.reg.Handler())
	tests := []struct {
		method, path string
		wantStatus   int
		wantCode     string // "" for a successful answer
		wantAllow    string
	}{
		{"GET", "/control/", 200, "", ""},
		{"GET", "/control", 200, "", ""},
		{"GET", "/control/knobs", 200, "", ""},
		{"HEAD", "/control/", 200, "", ""},
		{"HEAD", "/control/knobs", 200, "", ""},
		{"HEAD", "/control/audit", 200, "", ""},
		{"GET", "/control/nope", 404, "not_found", ""},
		{"POST", "/control/nope", 404, "not_found", ""},
		{"HEAD", "/control/nope", 404, "not_found", ""},
		{"GET", "/control/knobs/", 404, "not_found", ""},
		{"GET", "/control/stats/", 404, "not_found", ""},
		{"POST", "/control/rollback/", 404, "not_found", ""},
		{"GET", "/control//knobs", 404, "not_found", ""},
		{"GET", "/control/./knobs", 404, "not_found", ""},
		{"GET", "/control/KNOBS", 404, "not_found", ""},
		{"DELETE", "/control/", 405, "method_not_allowed", "GET, HEAD, POST"},
		{"PUT", "/control/knobs", 405, "method_not_allowed", "GET, HEAD"},
		{"POST", "/control/knobs", 405, "method_not_allowed", "GET, HEAD"},
		{"POST", "/control/audit", 405, "method_not_allowed", "GET, HEAD"},
		{"GET", "/control/rollback", 405, "method_not_allowed", "POST"},
		{"HEAD", "/control/rollback", 405, "method_not_allowed", "POST"},
		{"OPTIONS", "/control/state", 405, "method_not_allowed", "GET, HEAD"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, "/", nil)
			req.URL.Path = tt.path // as sent: httptest.NewRequest would clean it
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			assert.Equal(t, tt.wantStatus, rec.Code, rec.Body.String())
			assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			assert.Equal(t, tt.wantAllow, rec.Header().Get("Allow"))
			if tt.method == "HEAD" && tt.wantCode == "" {
				assert.Empty(t, rec.Body.String(), "HEAD answers no body")
				return
			}
			var body any
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), "a JSON answer: %q", rec.Body)
			obj, _ := body.(map[string]any)
			code, _ := obj["code"].(string)
			msg, _ := obj["error"].(string)
			assert.Equal(t, tt.wantCode, code)
			assert.Equal(t, tt.wantCode != "", strings.HasPrefix(msg, "control: "), msg)
		})
	}
	assert.Zero(t, fx.calls, "no request changed a knob")
}

// A POST must declare its body as JSON. A browser sends a cross-site POST of
// text/plain, a form or a typeless blob without a CORS preflight, so a page an
// operator visits could otherwise change the knobs of a handler on loopback.
func TestHTTPPostNeedsJSONContentType(t *testing.T) {
	tests := []struct {
		ctype      string
		wantStatus int
		wantCode   string
	}{
		{"", 415, `"unsupported_media_type"`},
		{"text/plain", 415, `"unsupported_media_type"`},
		{"text/plain; charset=utf-8", 415, `"unsupported_media_type"`},
		{"application/x-www-form-urlencoded", 415, `"unsupported_media_type"`},
		{"multipart/form-data; boundary=x", 415, `"unsupported_media_type"`},
		{"application/jsonx", 415, `"unsupported_media_type"`},
		{"application/json;", 200, `"batch"`},
		{"application/json", 200, `"batch"`},
		{"application/json; charset=utf-8", 200, `"batch"`},
		{"Application/JSON", 200, `"batch"`},
	}
	for _, tt := range tests {
		t.Run(tt.ctype, func(t *testing.T) {
			fx := newFixture(t, control.Config{})
			h := fx.reg.Handler()
			for _, p := range []struct{ path, body string }{
				{"/", `{"who":"x","changes":[{"knob":"n","value":20}]}`},
				{"/rollback", `{"who":"x"}`},
			} {
				req := httptest.NewRequest("POST", p.path, strings.NewReader(p.body))
				req.Header.Set("Content-Type", tt.ctype)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				assert.Equal(t, tt.wantStatus, rec.Code, "%s: %s", p.path, rec.Body)
				assert.Contains(t, rec.Body.String(), tt.wantCode, p.path)
			}
			assert.Equal(t, int64(10), fx.n, "changed and rolled back, or never changed")
		})
	}
}

// A body must be a JSON object. JSON null decodes into a struct as a no-op,
// so a POST /rollback of null rolled back as if it were {} from an anonymous
// caller, and DecodeRequest took null for a request.
func TestHTTPBodyNotAnObject(t *testing.T) {
	fx := newFixture(t, control.Config{})
	_, err := fx.reg.ApplyAt(t0, one("n", control.Int(20)))
	require.NoError(t, err)
	for _, body := range []string{`null`, ` null `, `[]`, `"who"`, `1`, `true`} {
		for _, path := range []string{"/", "/rollback"} {
			rec := httptest.NewRecorder()
			fx.reg.Handler().ServeHTTP(rec, postJSON(path, body))
			assert.Equal(t, http.StatusBadRequest, rec.Code, "%s %s: %s", path, body, rec.Body)
			assert.Contains(t, rec.Body.String(), `"bad_request"`, "%s %s", path, body)
		}
		_, err := control.DecodeRequest([]byte(body))
		assert.Error(t, err, body)
	}
	assert.Equal(t, int64(20), fx.n, "not rolled back")
	assert.Len(t, fx.reg.Audit(), 1)
}
