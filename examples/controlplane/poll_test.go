package controlplane_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

func TestHTTPPoller(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		check  func(t *testing.T, s controlplane.Sample, err error)
	}{
		{"host state", 200, `{"knobs": [{"name": "a.b", "value": 3}, {"name": "c", "value": "5ms", "last_change": "2026-01-01T00:00:00Z"}],
			"state": {"gateway": {}, "host": {"cpu_seconds": 1.5, "uptime_seconds": 10, "in_flight": 3,
			"commands": 7, "tenants": {"a": {"requests": 5, "shed": 2}}}}}`,
			func(t *testing.T, s controlplane.Sample, err error) {
				require.NoError(t, err)
				assert.Equal(t, 1.5, s.CPUSeconds)
				assert.Equal(t, 3, s.InFlight)
				assert.Equal(t, uint64(2), s.Tenants["a"].Shed)
				assert.Equal(t, map[string]string{"a.b": "3", "c": `"5ms"`}, s.Knobs)
				assert.Equal(t, []string{"c"}, s.Changed)
			}},
		{"no host entry", 200, `{"state": {"gateway": {}}}`, func(t *testing.T, _ controlplane.Sample, err error) {
			assert.ErrorIs(t, err, controlplane.ErrNoHostState)
			assert.ErrorIs(t, err, controlplane.ErrBadState)
		}},
		{"bad JSON", 200, `{"host": [`, func(t *testing.T, _ controlplane.Sample, err error) {
			assert.ErrorContains(t, err, "decoding")
			assert.ErrorIs(t, err, controlplane.ErrBadState)
		}},
		{"status", 500, `{"error": "control: encode: json: unsupported value: NaN"}`, func(t *testing.T, _ controlplane.Sample, err error) {
			var se *controlplane.StatusError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, 500, se.Status)
			assert.ErrorIs(t, err, controlplane.ErrBadState)
			assert.ErrorContains(t, err, "unsupported value: NaN", "the body helps the diagnosis")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				assert.Equal(t, "/control/", r.URL.Path)
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			g := controlplane.Gateway{ID: "g", HTTP: strings.TrimPrefix(srv.URL, "http://")}
			s, err := (&controlplane.HTTPPoller{}).Poll(context.Background(), g)
			tt.check(t, s, err)
		})
	}
}

// A sample with a negative or NaN figure is a bad state: the gateway answered, so
// it is not drained, and it gives no signal.
func TestBadSampleIsAFailedPoll(t *testing.T) {
	p, err := controlplane.New(controlplane.Config{Regions: []controlplane.Region{{Name: "eu"}},
		Gateways: []controlplane.Gateway{gw("eu", 1, 1)},
		Poller: controlplane.PollerFunc(func(context.Context, controlplane.Gateway) (controlplane.Sample, error) {
			return controlplane.Sample{CPUSeconds: -1, UptimeSeconds: 3}, nil
		})})
	require.NoError(t, err)
	for k := range 5 { // more than DrainAfter
		require.NoError(t, p.Tick(context.Background(), t0.Add(time.Duration(k)*time.Second)))
	}
	h := p.State().Hosts[0]
	assert.Equal(t, controlplane.HealthBadState, h.Health)
	assert.Contains(t, h.Error, "CPU -1")
	assert.False(t, h.Draining)
	assert.Equal(t, uint64(5), h.Failures)
	r, _ := p.Routes()
	assert.Empty(t, r.Draining)
}
