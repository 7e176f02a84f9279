package controlplane_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/examples/controlplane"
)

// FetchRoutes and Follow followed redirects (http.DefaultClient), unlike the
// poller: whatever answered at the plane's URL with a 302 to another host had
// that host's routes (another plane's, another fleet's gateways) applied as the
// plane's. A plane's handler never redirects: a redirect is an answer the
// client cannot use, a *StatusError, and Follow keeps the routes in force.
func TestFetchRoutesDoesNotFollowRedirects(t *testing.T) {
	other, _ := twoRegions(t, 1.5)
	var otherHits atomic.Int32
	otherSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherHits.Add(1)
		other.Handler().ServeHTTP(w, r)
	}))
	defer otherSrv.Close()
	var liarHits atomic.Int32
	second := make(chan struct{})
	liar := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if liarHits.Add(1) == 2 {
			close(second) // Follow handled the first answer and polls again
		}
		http.Redirect(w, r, otherSrv.URL+"/api/routes", http.StatusFound)
	}))
	defer liar.Close()

	_, _, err := controlplane.FetchRoutes(context.Background(), liar.URL+"/api/routes")
	var se *controlplane.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, http.StatusFound, se.Status)

	liarHits.Store(0)
	c, err := client.New(client.Config{Service: "s", Region: "eu"})
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- controlplane.Follow(ctx, liar.URL+"/api/routes", c, time.Millisecond) }()
	<-second
	cancel()
	require.NoError(t, <-done)
	_, ok := c.Routes()
	assert.False(t, ok, "the other host's routes were applied")
	assert.Zero(t, otherHits.Load(), "the redirect was followed")
}
