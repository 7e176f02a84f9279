package controlplane_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// The poller followed redirects: a gateway whose /control/ answered 302 to
// another gateway's had that one's CPU and counters counted as its own (and a
// gateway could point the plane's GET at any URL it can reach). A gateway's
// control handler never redirects: the answer is a state the plane cannot use.
func TestPollDoesNotFollowRedirects(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"knobs": [], "state": {"host": {"cpu_seconds": 7, "uptime_seconds": 9}}}`))
	}))
	defer other.Close()
	liar := httptest.NewServer(http.RedirectHandler(other.URL+"/control/", http.StatusFound))
	defer liar.Close()
	g := controlplane.Gateway{ID: "eu-1", Region: "eu", RESP: "127.0.0.1:1", HTTP: strings.TrimPrefix(liar.URL, "http://"), Cores: 1}
	s, err := (&controlplane.HTTPPoller{}).Poll(context.Background(), g)
	require.ErrorIs(t, err, controlplane.ErrBadState, "sample %+v", s)
	var se *controlplane.StatusError
	require.True(t, errors.As(err, &se))
	require.Equal(t, http.StatusFound, se.Status)
}
