package controlplane_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// A gateway that answers 200 with a complete body the plane cannot use is
// reachable: its poll error wraps ErrBadState and it is never drained. The
// poller took every decoder error other than a syntax or type error for a
// transport failure: an empty body (the decoder's io.EOF) or a knob whose
// last_change is not a time (time.Time's own error) marked the gateway down,
// and after DrainAfter polls clients skipped a live gateway.
func TestGarbageAnswerIsBadState(t *testing.T) {
	for name, body := range map[string]string{
		"empty body":       ``,
		"blank body":       " \n",
		"bad last_change":  `{"knobs": [{"name": "a", "value": 1, "last_change": "yesterday"}], "state": {"host": {"cpu_seconds": 1, "uptime_seconds": 2}}}`,
		"last_change type": `{"knobs": [{"name": "a", "value": 1, "last_change": 5}], "state": {"host": {"cpu_seconds": 1, "uptime_seconds": 2}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(body))
			}))
			defer srv.Close()
			g := controlplane.Gateway{ID: "eu-1", Region: "eu", RESP: "127.0.0.1:1", HTTP: strings.TrimPrefix(srv.URL, "http://"), Cores: 1}
			_, err := (&controlplane.HTTPPoller{}).Poll(context.Background(), g)
			require.ErrorIs(t, err, controlplane.ErrBadState)

			p, err := controlplane.New(controlplane.Config{Regions: []controlplane.Region{{Name: "eu"}}, Gateways: []controlplane.Gateway{g},
				// a poll timeout far above the server's answer time: at the default
				// (Cadence/2, 50 ms) a loaded machine's late answer read as
				// unreachable, not as the bad state under test
				Cadence: 100 * time.Millisecond, PollTimeout: 30 * time.Second, DrainAfter: 2})
			require.NoError(t, err)
			for k := 1; k <= 3; k++ {
				require.NoError(t, p.Tick(context.Background(), t0.Add(time.Duration(k)*time.Second)))
			}
			h := p.State().Hosts[0]
			require.Equal(t, controlplane.HealthBadState, h.Health, h.Error)
			require.False(t, h.Draining, "it answers every poll")
		})
	}
}
