package controlplane_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/examples/controlplane"
	"github.com/tierkit/tierkit/rollout"
)

// The routes a client fetches route every key exactly as the plane's own routes do.
func TestFetchRoutesRoundTrip(t *testing.T) {
	p, ft := twoRegions(t, 1.5)
	ft.set("eu-2", func(g *fakeGW) { g.skew = 1.5 })
	ft.setDemand("eu", 2.8)
	k := 0
	run(t, p, ft, &k, 20)
	require.NoError(t, p.SetRollout(rollout.Config{Rules: []rollout.Rule{{Service: "s", Prefix: "user:", Percent: 50}}}))
	require.NoError(t, p.Drain("us-3"))
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()

	want, wantV := p.Routes()
	got, v, err := controlplane.FetchRoutes(context.Background(), srv.URL+"/api/routes")
	require.NoError(t, err)
	assert.Equal(t, wantV, v)
	assert.Equal(t, want.Direct, got.Direct)
	assert.Equal(t, want.Draining, got.Draining)
	assert.Equal(t, want.Failover.Routes, got.Failover.Routes)
	require.NotEmpty(t, got.Failover.Routes, "eu spills")
	for region, ring := range want.Gateways {
		require.Equal(t, ring.Nodes(), got.Gateways[region].Nodes())
		for i := range 2000 {
			key := "user:" + strconv.Itoa(i)
			a, _ := ring.Lookup(key)
			b, _ := got.Gateways[region].Lookup(key)
			require.Equal(t, a, b)
		}
	}
	for i := range 2000 {
		q := rollout.Query{Service: "s", Key: "user:" + strconv.Itoa(i)}
		require.Equal(t, want.Rollout.Use(q), got.Rollout.Use(q))
		require.Equal(t, want.Failover.Pick("eu", q.Key), got.Failover.Pick("eu", q.Key))
	}

	_, _, err = controlplane.FetchRoutes(context.Background(), srv.URL+"/api/nothing")
	var se *controlplane.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, http.StatusNotFound, se.Status)
}

// The routes endpoint answers 304 to a client that has the current version.
func TestRoutesNotModified(t *testing.T) {
	p, _ := twoRegions(t, 1.5)
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()
	tag := routesTag(t, srv.URL)
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/routes", nil)
	req.Header.Set("If-None-Match", tag)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotModified, resp.StatusCode)
	require.NoError(t, p.Drain("eu-1"))
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.NotEqual(t, tag, resp.Header.Get("ETag"))
}

// routesTag GETs the routes document at url and returns its ETag.
func routesTag(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url + "/api/routes")
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	tag := resp.Header.Get("ETag")
	require.NotEmpty(t, tag)
	return tag
}

// TestRoutesNotModifiedTagForms: If-None-Match compares weakly, may list
// several tags and may be "*" (RFC 9110); only the exact tag got a 304
// (found by a review).
func TestRoutesNotModifiedTagForms(t *testing.T) {
	p, _ := twoRegions(t, 1.5)
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()
	tag := routesTag(t, srv.URL)
	for _, tc := range []struct {
		header string
		want   int
	}{
		{tag, http.StatusNotModified},
		{"W/" + tag, http.StatusNotModified},
		{`"other", ` + tag, http.StatusNotModified},
		{"*", http.StatusNotModified},
		{`"other"`, http.StatusOK},
		{`W/"other", "more"`, http.StatusOK},
	} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/routes", nil)
		req.Header.Set("If-None-Match", tc.header)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		assert.Equal(t, tc.want, resp.StatusCode, "If-None-Match: %s", tc.header)
	}
}

// Follow applies each new version once, and only new versions.
func TestFollow(t *testing.T) {
	noLeaks(t)
	p, _ := twoRegions(t, 1.5)
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()
	c, err := client.New(client.Config{Service: "s", Region: "eu"})
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- controlplane.Follow(ctx, srv.URL+"/api/routes", c, time.Millisecond) }()
	waitFor(t, func() bool { _, ok := c.Routes(); return ok })
	// Polls keep coming; without a new version nothing is applied again.
	waitFor(t, func() bool { return true })
	require.NoError(t, p.SetRollout(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}}}))
	waitFor(t, func() bool {
		tg, err := c.Route("k")
		return err == nil && tg.Path == client.PathGateway
	})
	require.NoError(t, p.Drain("eu-1"))
	waitFor(t, func() bool { r, _ := c.Routes(); return len(r.Draining) == 1 })
	cancel()
	require.NoError(t, <-done)
	assert.Equal(t, uint64(3), c.Stats().Swaps, "one SetRoutes per version: 1, 2 (rollout), 3 (drain)")
}

// waitFor polls cond until it holds, within a bounded deadline.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		require.True(t, time.Now().Before(deadline), "condition not met in time")
		time.Sleep(2 * time.Millisecond)
	}
}

func TestHandlerAPI(t *testing.T) {
	p, ft := twoRegions(t, 1.5)
	k := 0
	run(t, p, ft, &k, 3)
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()
	do := func(method, path, body string) (int, string) {
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		if method == http.MethodPost {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	tests := []struct {
		method, path, body string
		status             int
		contains           string
	}{
		{"GET", "/", "", 200, "<html"},
		{"GET", "/dashboard.js", "", 200, "function"},
		{"GET", "/api/state", "", 200, `"regions"`},
		{"POST", "/api/rollout", `{"Rules":[{"Service":"s","Percent":25}]}`, 200, `"Percent":25`},
		{"POST", "/api/rollout", `{"Rules":[{"Service":"","Percent":25}]}`, 400, "empty service"},
		{"POST", "/api/rollout", `{"Rulez":[]}`, 400, "unknown field"},
		{"POST", "/api/gateways", `{"id":"eu-9","region":"eu","resp":"127.0.0.1:7999","http":"127.0.0.1:8999","cores":1}`, 200, "eu-9"},
		{"POST", "/api/gateways", `{"id":"eu-9","region":"eu","resp":"127.0.0.1:7998","http":"127.0.0.1:8998","cores":1}`, 409, "duplicate"},
		{"POST", "/api/gateways", `{"id":"x","region":"mars","resp":"a:1","http":"a:2","cores":1}`, 400, "mars"},
		{"POST", "/api/drain/eu-9", "", 200, `"version"`},
		{"POST", "/api/drain/nope", "", 404, "unknown gateway"},
		{"POST", "/api/undrain/eu-9", "", 200, `"version"`},
		{"DELETE", "/api/gateways/eu-9", "", 200, `"version"`},
		{"DELETE", "/api/gateways/eu-9", "", 404, "unknown"},
		{"GET", "/api/nothing", "", 404, ""},
	}
	for _, tt := range tests {
		status, body := do(tt.method, tt.path, tt.body)
		assert.Equal(t, tt.status, status, "%s %s: %s", tt.method, tt.path, body)
		assert.Contains(t, body, tt.contains, "%s %s", tt.method, tt.path)
	}
	var st controlplane.State
	_, body := do("GET", "/api/state", "")
	require.NoError(t, json.Unmarshal([]byte(body), &st))
	assert.Len(t, st.Hosts, 6)
	assert.Len(t, st.History, 3)
	assert.Equal(t, 25.0, st.Rollout.Rules[0].Percent)
	assert.Equal(t, uint64(3), st.Tick)
}
