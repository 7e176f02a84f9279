package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// TestNoisyTenantRestoresKnobsAsFound: noisy-tenant set its knobs back to
// hard-coded values (aimd.max 4096, shed.max_queue 1024, a 100 ms queue
// deadline, no delay), the gateway's defaults, rather than the values it
// found: on gateways configured otherwise (a gateway binary given with
// -gateway, with other defaults, or knobs changed by an operator) the
// scenario did not leave the cluster as it found it, as scenarios promise.
// Here the gateway's knobs are off their defaults: the restore must send
// them back as they were.
func TestNoisyTenantRestoresKnobsAsFound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const found = `[{"name": "aimd.max", "value": 512}, {"name": "chaos.burn_us", "value": 300},
			{"name": "chaos.delay_us", "value": 7}, {"name": "shed.queue_deadline", "value": "250ms"},
			{"name": "shed.max_queue", "value": 64}, {"name": "aimd.target", "value": 1}]`
		var mu sync.Mutex
		var posts []control.Request
		c := noisyCluster(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			switch {
			case req.Method == http.MethodGet && req.URL.Path == "/control/state":
				fmt.Fprint(w, `{"host":{"uptime_seconds":10,"tenants":{}}}`)
			case req.Method == http.MethodPost && req.URL.Path == "/control/":
				var r control.Request
				if assert.NoError(t, json.NewDecoder(req.Body).Decode(&r)) {
					mu.Lock()
					posts = append(posts, r)
					mu.Unlock()
				}
			}
		}))
		c.hc.Transport = handlerTransport{withKnobs(c.hc.Transport.(handlerTransport).h, found)}
		require.NoError(t, noisyTenant(t.Context(), c, &Report{Name: "noisy-tenant"}))
		mu.Lock()
		defer mu.Unlock()
		require.Len(t, posts, 2, "one change, one restore")
		got := map[string]string{}
		for _, ch := range posts[1].Changes {
			got[ch.Knob] = ch.Value.String()
		}
		assert.Equal(t, map[string]string{"aimd.max": "512", "chaos.burn_us": "300", "chaos.delay_us": "7",
			"shed.queue_deadline": "250ms", "shed.max_queue": "64"}, got, "the restore sets the knobs as they were found")
	})
}

// TestKnobsReadAndRestored: readKnobs reads a control.Registry's int and
// duration knobs as its HTTP API lists them, and restoreKnobs sets a changed
// registry back to them.
func TestKnobsReadAndRestored(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "shed.max_queue", Min: 1, Max: 1 << 20, Value: 64,
		Apply: func(int64) error { return nil }}))
	require.NoError(t, reg.RegisterDuration(control.DurationKnob{Name: "shed.queue_deadline", Min: time.Millisecond, Max: time.Minute,
		Value: 250 * time.Millisecond, Apply: func(time.Duration) error { return nil }}))
	mux := http.NewServeMux()
	mux.Handle("/control/", http.StripPrefix("/control", reg.Handler()))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	g := &gatewayProc{ID: "eu-1", HTTP: strings.TrimPrefix(srv.URL, "http://")}
	c := &Cluster{hc: srv.Client()}

	saved, err := c.readKnobs(t.Context(), []*gatewayProc{g}, "shed.max_queue", "shed.queue_deadline")
	require.NoError(t, err)
	require.NoError(t, c.SetKnobs(t.Context(), []*gatewayProc{g}, "test: change", "shed.max_queue", 4, "shed.queue_deadline", time.Second))
	require.NoError(t, c.restoreKnobs(t.Context(), []*gatewayProc{g}, "test: restore", saved))
	for name, want := range map[string]control.Value{"shed.max_queue": control.Int(64), "shed.queue_deadline": control.Duration(250 * time.Millisecond)} {
		got, err := reg.Get(name)
		require.NoError(t, err)
		assert.Equal(t, want.String(), got.String(), name)
	}
	_, err = c.readKnobs(t.Context(), []*gatewayProc{g}, "aimd.max")
	require.ErrorContains(t, err, "gateway eu-1 has no knob aimd.max")
}

// TestNoisyTenantRestoresAfterAFailedChange: noisy-tenant set up its restore
// only after its change succeeded everywhere, so a change that failed on one
// gateway (and was applied on the others, or on this one before its answer
// was lost) left the small tier's knobs in place. The restore now comes first.
func TestNoisyTenantRestoresAfterAFailedChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var posts []control.Request
		c := noisyCluster(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.Method != http.MethodPost || req.URL.Path != "/control/" {
				return
			}
			var r control.Request
			if !assert.NoError(t, json.NewDecoder(req.Body).Decode(&r)) {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			posts = append(posts, r)
			if len(posts) == 1 { // the change fails; the restore succeeds
				http.Error(w, `{"error": "lost"}`, http.StatusInternalServerError)
			}
		}))
		err := noisyTenant(t.Context(), c, &Report{Name: "noisy-tenant"})
		require.ErrorContains(t, err, "500")
		mu.Lock()
		defer mu.Unlock()
		require.Len(t, posts, 2, "the failed change, then the restore")
		assert.Equal(t, "noisy-tenant: restore", posts[1].Why)
		assert.Len(t, posts[1].Changes, 5)
	})
}
