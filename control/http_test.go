package control_test

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

func TestHTTP(t *testing.T) {
	fx := newFixture(t, control.Config{})
	fx.fail = "b"
	require.NoError(t, fx.reg.RegisterState("comp", func() any { return map[string]int{"queued": 3} }))
	h := http.StripPrefix("/control", fx.reg.Handler())
	do := func(method, path, body string) (int, string, http.Header) {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		data, _ := io.ReadAll(rec.Body)
		return rec.Code, string(data), rec.Header()
	}
	tests := []struct {
		name, method, path, body string
		wantStatus               int
		wantBody                 string
	}{
		{"list", "GET", "/control/", "", 200, `"queued": 3`},
		{"knobs", "GET", "/control/knobs", "", 200, `"name": "n"`},
		{"state", "GET", "/control/state", "", 200, `"comp"`},
		{"change", "POST", "/control/", `{"who":"op","why":"w","changes":[{"knob":"n","value":200}]}`, 200, `"clamped": true`},
		{"audit", "GET", "/control/audit", "", 200, `"who": "op"`},
		{"stats", "GET", "/control/stats", "", 200, `"Applied": 1`},
		{"unknown", "POST", "/control/", `{"changes":[{"knob":"zz","value":1}]}`, 404, `"unknown_knob"`},
		{"null change", "POST", "/control/", `{"changes":[null]}`, 400, `"bad_request"`},
		{"bounds", "POST", "/control/", `{"strict":true,"changes":[{"knob":"n","value":200}]}`, 422, `"out_of_bounds"`},
		{"value", "POST", "/control/", `{"changes":[{"knob":"d","value":5}]}`, 400, `"invalid_value"`},
		{"junk", "POST", "/control/", `{"changes":`, 400, `"bad_request"`},
		{"unknown field", "POST", "/control/", `{"chnages":[]}`, 400, `"bad_request"`},
		{"apply failed", "POST", "/control/", `{"changes":[{"knob":"b","value":true}]}`, 500, `"apply_failed"`},
		{"rollback", "POST", "/control/rollback", `{"who":"op","why":"undo"}`, 200, `"batch": 2`},
		{"nothing left", "POST", "/control/rollback", `{"who":"op"}`, 409, `"nothing_to_rollback"`},
		{"method", "DELETE", "/control/", "", 405, `"method_not_allowed"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body, _ := do(tt.method, tt.path, tt.body)
			assert.Equal(t, tt.wantStatus, status, body)
			assert.Contains(t, body, tt.wantBody)
		})
	}
	assert.Equal(t, int64(10), fx.n, "rolled back")
}

func TestHTTPRateLimitedSetsRetryAfter(t *testing.T) {
	fx := newFixture(t, control.Config{Rate: 0.5})
	h := fx.reg.Handler()
	post := func(v int) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, postJSON("/", `{"changes":[{"knob":"n","value":`+json.Number(string(rune('0'+v))).String()+`}]}`))
		return rec
	}
	require.Equal(t, 200, post(2).Code)
	rec := post(3)
	require.Equal(t, 429, rec.Code)
	assert.Equal(t, "2", rec.Header().Get("Retry-After"))
	a := fx.reg.Audit()
	require.Len(t, a, 1)
	assert.True(t, strings.HasPrefix(a[0].Who, "http:"), "who defaults to the client address")
}

// TestHTTPStateNotEncodable: a component whose snapshot JSON cannot encode (a
// NaN gauge) gets an error entry; the other states and the knobs still answer 200.
func TestHTTPStateNotEncodable(t *testing.T) {
	fx := newFixture(t, control.Config{})
	require.NoError(t, fx.reg.RegisterState("good", func() any { return map[string]int{"queued": 3} }))
	require.NoError(t, fx.reg.RegisterState("bad", func() any { return map[string]float64{"load": math.NaN()} }))
	h := http.StripPrefix("/control", fx.reg.Handler())
	for _, path := range []string{"/control/", "/control/state"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		require.Equal(t, http.StatusOK, rec.Code, path)
		body := rec.Body.String()
		assert.Contains(t, body, `"queued": 3`, path)
		assert.Contains(t, body, `"error": "json: unsupported value: NaN"`, path)
	}
}

// DecodeRequest: "unknown fields and trailing data are errors".
func TestDecodeRequestTrailingData(t *testing.T) {
	for _, tail := range []string{` {}`, ` x`, `}`, `]`, `]]]}}`} {
		body := `{"who":"op","changes":[{"knob":"a","value":1}]}` + tail
		if _, err := control.DecodeRequest([]byte(body)); err == nil {
			t.Errorf("DecodeRequest(%q) accepted trailing data %q", body, tail)
		}
	}
}

// RetryAfter must say how long until a change would be accepted: with one
// token per 1e10 s that is 1e10 s, not 1 ns (float->Duration overflow).
func TestRetryAfterTinyRate(t *testing.T) {
	reg, err := control.New(control.Config{Rate: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	var x int64
	if err := reg.RegisterInt(control.IntKnob{Name: "x", Apply: func(v int64) error { x = v; _ = x; return nil }}); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := reg.ApplyAt(now, control.Request{Changes: []control.Change{{Knob: "x", Value: control.Int(1)}}}); err != nil {
		t.Fatal(err)
	}
	_, err = reg.ApplyAt(now, control.Request{Changes: []control.Change{{Knob: "x", Value: control.Int(2)}}})
	var rl *control.RateLimitError
	if !errors.As(err, &rl) {
		t.Fatalf("second change: %v, want a *RateLimitError", err)
	}
	if rl.RetryAfter < time.Hour {
		t.Errorf("RetryAfter = %v, want about 1e10 s (capped at the largest Duration)", rl.RetryAfter)
	}
}

// TestRateSwitchedOnStartsFull: a registry made without a rate limit and given
// one by SetConfig allows Burst changes at once, as one configured at New.
func TestRateSwitchedOnStartsFull(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	var x int64
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "x", Max: 100, Apply: func(v int64) error { x = v; return nil }}))
	require.NoError(t, reg.SetConfig(control.Config{Rate: 0.001, Burst: 3}))
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range int64(3) {
		_, err := reg.ApplyAt(now, control.Request{Changes: []control.Change{{Knob: "x", Value: control.Int(i + 1)}}})
		require.NoError(t, err, "change %d of a burst of 3", i+1)
	}
	_, err = reg.ApplyAt(now, control.Request{Changes: []control.Change{{Knob: "x", Value: control.Int(9)}}})
	var rl *control.RateLimitError
	assert.ErrorAs(t, err, &rl, "the fourth change at once is over the burst")
	assert.Equal(t, int64(3), x)
}

// Retry-After is the RetryAfter in whole seconds, rounded up: a refusal whose
// wait is near the largest Duration (a rate of 1e-300 per second, or a
// MinInterval of years) must not answer "retry after 1 s".
func TestHTTPRetryAfterHuge(t *testing.T) {
	reg, err := control.New(control.Config{Rate: 1e-300})
	require.NoError(t, err)
	var x int64
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "x", Apply: func(v int64) error { x = v; return nil }}))
	h := reg.Handler()
	post := func(v string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, postJSON("/", `{"changes":[{"knob":"x","value":`+v+`}]}`))
		return rec
	}
	require.Equal(t, 200, post("1").Code)
	rec := post("2")
	require.Equal(t, 429, rec.Code, rec.Body.String())
	secs, err := strconv.ParseInt(rec.Header().Get("Retry-After"), 10, 64)
	require.NoError(t, err)
	assert.Greater(t, secs, int64(1e9), "Retry-After for a wait of about 292 years")
	assert.Equal(t, int64(1), x)
}

// A component's refusal answers 500 apply_failed whatever its error wraps:
// an Apply func that forwards to another registry (or returns its own
// validation error) must not make the answer say the knob is unknown, the
// value invalid or the budget spent here.
func TestHTTPApplyErrorWrappingControlErrors(t *testing.T) {
	for _, inner := range []error{control.ErrUnknownKnob, &control.ValueError{Knob: "y", Reason: "no"},
		&control.BoundsError{Knob: "y"}, &control.RateLimitError{RetryAfter: time.Hour}, control.ErrEmptyRequest} {
		reg, err := control.New(control.Config{})
		require.NoError(t, err)
		require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "x", Apply: func(int64) error { return inner }}))
		rec := httptest.NewRecorder()
		reg.Handler().ServeHTTP(rec, postJSON("/", `{"changes":[{"knob":"x","value":1}]}`))
		assert.Equal(t, http.StatusInternalServerError, rec.Code, "%v: %s", inner, rec.Body)
		assert.Contains(t, rec.Body.String(), `"apply_failed"`, inner.Error())
		assert.Empty(t, rec.Header().Get("Retry-After"), inner.Error())
	}
}

// postJSON returns a POST of body to path, sent as JSON.
func postJSON(path, body string) *http.Request {
	req := httptest.NewRequest("POST", path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return req
}
