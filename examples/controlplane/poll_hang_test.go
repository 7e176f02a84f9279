package controlplane_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// A gateway that sends its headers and then hangs (or dies mid-answer) fails
// its poll at the transport: it counts as down, and is drained after
// DrainAfter polls. (The poll error once wrapped ErrBadState, so the plane
// showed it "bad-state", reset its down count and never drained it.)
func TestHungMidBodyIsNotBadState(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"knobs": [`))
		w.(http.Flusher).Flush()
		select { // hung: the client's deadline ends the poll
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer srv.Close()
	defer close(stop)
	g := controlplane.Gateway{ID: "eu-1", Region: "eu", RESP: "127.0.0.1:1", HTTP: strings.TrimPrefix(srv.URL, "http://"), Cores: 1}
	p, err := controlplane.New(controlplane.Config{Regions: []controlplane.Region{{Name: "eu"}}, Gateways: []controlplane.Gateway{g},
		Cadence: 100 * time.Millisecond, PollTimeout: 50 * time.Millisecond, DrainAfter: 2})
	require.NoError(t, err)
	for k := 1; k <= 3; k++ {
		require.NoError(t, p.Tick(context.Background(), t0.Add(time.Duration(k)*time.Second)))
	}
	h := p.State().Hosts[0]
	t.Logf("health %v, down ticks %d, error %q", h.Health, h.DownTicks, h.Error)
	require.Equal(t, controlplane.HealthDown, h.Health)
	require.True(t, h.Draining, "unreachable for 3 polls with DrainAfter 2")
	_ = errors.New
}
