package main

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoisyTenantCountsBetweenWindows: noisy-tenant checked the other
// tenants' shed and failed requests only in its calm and flood windows, so
// one shed or failed while it read the gateways' states before the flood, or
// from the flood's end to the restore, passed unnoticed, although the README
// says any one fails the scenario. Here another tenant's request fails (or is
// shed) during one of the state reads: the scenario must report a failure it
// does not report when nothing happens then.
func TestNoisyTenantCountsBetweenWindows(t *testing.T) {
	run := func(t *testing.T, read int64, err error) []string {
		var failures []string
		synctest.Test(t, func(t *testing.T) {
			var reads atomic.Int64
			var c *Cluster
			c = noisyCluster(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				if req.Method == http.MethodGet && req.URL.Path == "/control/state" {
					if reads.Add(1) == read {
						c.Load.byKey["t01/eu"].record(err)
					}
					fmt.Fprint(w, `{"host":{"uptime_seconds":10,"tenants":{}}}`)
				}
			}))
			r := &Report{Name: "noisy-tenant"}
			require.NoError(t, noisyTenant(t.Context(), c, r))
			require.Equal(t, int64(2), reads.Load(), "the states are read twice: before and after the flood")
			failures = r.Failures
		})
		return failures
	}
	// The fake gateway sheds nothing of the flood: the checks on it fail
	// in every run, and only those.
	base := run(t, 0, nil)
	for _, tt := range []struct {
		name string
		read int64
		err  error
	}{
		{"failed while the states are read before the flood", 1, errors.New("i/o timeout")},
		{"shed while the states are read after the flood", 2, errors.New("OVERLOADED tenant t01 over its share")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, tt.read, tt.err)
			var extra []string
			for _, f := range got {
				if !slices.Contains(base, f) {
					extra = append(extra, f)
				}
			}
			assert.NotEmpty(t, extra, "the other tenant's request fails the scenario; failures: %q", got)
		})
	}
}

// noisyCluster is a cluster of one region, two tenants and one gateway
// whose HTTP control surface is h, served in process (c's HTTP client calls
// it directly), and a load whose streams send nothing.
func noisyCluster(t *testing.T, h http.Handler) *Cluster {
	spec := Spec{Regions: []string{"eu"}, Tenants: 2}.withDefaults()
	c := &Cluster{Spec: spec, Tenants: []string{"t00", "t01"},
		Gateways: []*gatewayProc{{proc: &proc{done: make(chan struct{})}, ID: "eu-1", Region: "eu", HTTP: "eu-1.test"}},
		hc:       &http.Client{Transport: handlerTransport{withKnobs(h, gatewayKnobs)}}}
	var err error
	c.Load, err = NewLoad(c.loadSpec())
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, c.Load.Close()) })
	return c
}

// gatewayKnobs is a gateway's GET /control/knobs answer (the knobs
// noisy-tenant changes) at the gateway's defaults.
const gatewayKnobs = `[{"name": "aimd.max", "value": 4096}, {"name": "chaos.burn_us", "value": 800},
	{"name": "chaos.delay_us", "value": 0}, {"name": "shed.queue_deadline", "value": "100ms"},
	{"name": "shed.max_queue", "value": 1024}]`

// withKnobs answers GET /control/knobs with knobs, and everything else with h.
func withKnobs(h http.Handler, knobs string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodGet && req.URL.Path == "/control/knobs" {
			fmt.Fprint(w, knobs)
			return
		}
		h.ServeHTTP(w, req)
	})
}

// handlerTransport answers every request with its handler, in process.
type handlerTransport struct{ h http.Handler }

func (tr handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	tr.h.ServeHTTP(rec, req)
	return rec.Result(), nil
}

// TestNoisyTenantOfferedRate: noisy-tenant divided each gateway's requests
// between its two state readings by a fixed 3 s (the flood's window), while
// the readings are further apart: the reads of the gateways' states (each
// retried for up to 2 s) fall between them too. The rate it compared with
// 1.25 times the capacity was overstated, so a gateway offered less than that
// had to shed the flood, and a correct run could fail. Here each read takes
// 500 ms: the gateway's 330 requests came in 3.5 s (94/s, under the 100/s
// bound), not 3 s (110/s).
func TestNoisyTenantOfferedRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var reads atomic.Int64
		c := noisyCluster(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.Method == http.MethodGet && req.URL.Path == "/control/state" {
				n := 330 * (reads.Add(1) - 1) // 0 before the flood, 330 after
				time.Sleep(500 * time.Millisecond)
				fmt.Fprintf(w, `{"host":{"uptime_seconds":%g,"tenants":{"t00":{"requests":%d}}}}`, time.Since(start).Seconds(), n)
			}
		}))
		r := &Report{Name: "noisy-tenant"}
		require.NoError(t, noisyTenant(t.Context(), c, r))
		require.Equal(t, int64(2), reads.Load())
		for _, f := range r.Failures {
			assert.NotContains(t, f, "gateway eu-1, offered", "eu-1 was offered 94/s, under 1.25 times its capacity of 80/s")
		}
		assert.Contains(t, r.Figures[len(r.Figures)-1], "eu-1 shed 0 of 330 offered (94/s)")
	})
}
