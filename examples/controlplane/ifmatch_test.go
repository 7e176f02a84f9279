package controlplane_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/rollout"
)

// changeTag reads the change tag GET /api/state serves (member "change_tag").
func changeTag(t *testing.T, h http.Handler) string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/state", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	var st struct {
		ChangeTag string `json:"change_tag"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
	require.NotEmpty(t, st.ChangeTag, "GET /api/state serves no change_tag to base a change on")
	return st.ChangeTag
}

// postIf POSTs body to path with If-Match ifMatch ("" for none).
func postIf(h http.Handler, path, body, ifMatch string) *httptest.ResponseRecorder {
	req := postJSON(path, body)
	if ifMatch != "" {
		req.Header.Set("If-Match", ifMatch)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// Two operators who read the same state both change the rollout: the second,
// whose If-Match names the state both read, gets 412 with the current tag and
// changes nothing, instead of overwriting the first's 50% with its stale 100%.
func TestIfMatchStaleRolloutRefused(t *testing.T) {
	p, _ := twoRegions(t, 1)
	h := p.Handler()
	base := changeTag(t, h)

	rec := postIf(h, "/api/rollout", `{"Rules": [{"Service": "app", "Percent": 50}]}`, base)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	now := changeTag(t, h)
	require.NotEqual(t, base, now, "an accepted change moves the tag")

	rec = postIf(h, "/api/rollout", `{"Rules": [{"Service": "app", "Percent": 100}]}`, base)
	require.Equal(t, http.StatusPreconditionFailed, rec.Code, rec.Body.String())
	var body map[string]string
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
	assert.Equal(t, now, body["change_tag"], "the 412 names the current tag")
	assert.Contains(t, body["error"], now)
	assert.Equal(t, 50.0, p.State().Rollout.Rules[0].Percent, "the stale change applied nothing")

	// The current tag, "*", or a list holding the current tag applies; no If-Match
	// applies as before.
	for _, list := range []func(string) string{
		func(cur string) string { return cur },
		func(string) string { return "*" },
		func(cur string) string { return `"nope", ` + cur },
	} {
		im := list(changeTag(t, h))
		rec = postIf(h, "/api/rollout", `{"Rules": [{"Service": "app", "Percent": 60}]}`, im)
		require.Equal(t, http.StatusOK, rec.Code, "%s: %s", im, rec.Body.String())
	}
	rec = postIf(h, "/api/rollout", `{"Rules": [{"Service": "app", "Percent": 70}]}`, "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, 70.0, p.State().Rollout.Rules[0].Percent)
	// A weak tag never matches (If-Match compares strongly).
	rec = postIf(h, "/api/rollout", `{"Rules": [{"Service": "app", "Percent": 80}]}`, "W/"+changeTag(t, h))
	require.Equal(t, http.StatusPreconditionFailed, rec.Code, rec.Body.String())
	// A bad body is still a 400, whatever the precondition.
	rec = postIf(h, "/api/rollout", `{"Rules": [{"Service": "app", "Percent": 101}]}`, base)
	require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
}

// A drain or undrain based on a stale state is refused alike; an unknown
// gateway is still a 404.
func TestIfMatchStaleDrainRefused(t *testing.T) {
	p, _ := twoRegions(t, 1)
	h := p.Handler()
	base := changeTag(t, h)
	require.Equal(t, http.StatusOK, postIf(h, "/api/drain/eu-1", "", base).Code)
	require.True(t, host(p.State(), "eu-1").Drained)

	rec := postIf(h, "/api/undrain/eu-1", "", base)
	require.Equal(t, http.StatusPreconditionFailed, rec.Code, rec.Body.String())
	require.True(t, host(p.State(), "eu-1").Drained, "the stale undrain changed nothing")
	rec = postIf(h, "/api/drain/eu-2", "", base)
	require.Equal(t, http.StatusPreconditionFailed, rec.Code, rec.Body.String())
	require.False(t, host(p.State(), "eu-2").Drained)
	require.Equal(t, http.StatusNotFound, postIf(h, "/api/drain/nope", "", base).Code)

	require.Equal(t, http.StatusOK, postIf(h, "/api/undrain/eu-1", "", changeTag(t, h)).Code)
	require.False(t, host(p.State(), "eu-1").Drained)
}

// Adding and removing a gateway take the precondition too.
func TestIfMatchStaleGatewayChangeRefused(t *testing.T) {
	p, _ := twoRegions(t, 1)
	h := p.Handler()
	base := changeTag(t, h)
	require.NoError(t, p.Drain("eu-1"))
	add := `{"id":"eu-9","region":"eu","resp":"127.0.0.1:7999","http":"127.0.0.1:8999","cores":1}`
	rec := postIf(h, "/api/gateways", add, base)
	require.Equal(t, http.StatusPreconditionFailed, rec.Code, rec.Body.String())
	require.Len(t, p.Gateways(), 6)
	del := func(ifMatch string) int {
		req := httptest.NewRequest(http.MethodDelete, "/api/gateways/eu-2", nil)
		req.Header.Set("If-Match", ifMatch)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	require.Equal(t, http.StatusPreconditionFailed, del(base))
	require.Len(t, p.Gateways(), 6)

	require.Equal(t, http.StatusOK, postIf(h, "/api/gateways", add, changeTag(t, h)).Code)
	require.Equal(t, http.StatusOK, del(changeTag(t, h)))
	require.Len(t, p.Gateways(), 6)
}

// The tag moves with the API's changes only: a tick that republishes the routes
// (the balancer moving weights) does not make an operator's page stale.
func TestIfMatchSurvivesTicks(t *testing.T) {
	p, ft := twoRegions(t, 1.5)
	ft.set("eu-2", func(g *fakeGW) { g.skew = 1.5 })
	h := p.Handler()
	base := changeTag(t, h)
	_, v0 := p.Routes()
	k := 0
	run(t, p, ft, &k, 10)
	_, v1 := p.Routes()
	require.Greater(t, v1, v0, "the ticks published new routes")
	rec := postIf(h, "/api/rollout", `{"Rules": [{"Service": "app", "Percent": 50}]}`, base)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	// A change through the Go API (an in-process agent) makes it stale.
	base = changeTag(t, h)
	require.NoError(t, p.SetRollout(rollout.Config{Kill: true}))
	require.Equal(t, http.StatusPreconditionFailed,
		postIf(h, "/api/rollout", `{"Rules": [{"Service": "app", "Percent": 60}]}`, base).Code)
	require.True(t, p.State().Rollout.Kill)
}

// Concurrent changes based on one tag: exactly one applies (the check and the
// change are one step under the plane's lock), and the state is the winner's.
func TestIfMatchConcurrentOneWins(t *testing.T) {
	p, _ := twoRegions(t, 1)
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()
	base := changeTag(t, p.Handler())
	const n = 8
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			body := `{"Rules": [{"Service": "app", "Percent": ` + strconv.Itoa(10+i) + `}]}`
			req, err := http.NewRequestWithContext(context.Background(), http.MethodPost,
				srv.URL+"/api/rollout", strings.NewReader(body))
			if err != nil {
				return
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("If-Match", base)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return
			}
			_ = resp.Body.Close()
			codes[i] = resp.StatusCode
		})
	}
	wg.Wait()
	won := -1
	for i, c := range codes {
		require.Contains(t, []int{http.StatusOK, http.StatusPreconditionFailed}, c, "codes %v", codes)
		if c == http.StatusOK {
			require.Equal(t, -1, won, "two changes applied: codes %v", codes)
			won = i
		}
	}
	require.NotEqual(t, -1, won, "codes %v", codes)
	require.Equal(t, float64(10+won), p.State().Rollout.Rules[0].Percent)
}
