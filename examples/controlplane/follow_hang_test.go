package controlplane_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/examples/controlplane"
)

// A plane that accepts a fetch and never answers it must not stop Follow: the
// fetch fails and the next period fetches again (the package doc: failures are
// retried at the next period). Before, the fetch had no bound but ctx, so one
// hung answer froze the client on its routes until ctx ended.
func TestFollowSurvivesHungFetch(t *testing.T) {
	p, _ := twoRegions(t, 1.5)
	plane := p.Handler()
	release := make(chan struct{})
	second := make(chan struct{})
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1: // hung until the test ends
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		case 2:
			close(second)
		}
		plane.ServeHTTP(w, r)
	}))
	defer srv.Close()
	defer close(release)
	c, err := client.New(client.Config{Service: "s", Region: "eu"})
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- controlplane.Follow(ctx, srv.URL+"/api/routes", c, 10*time.Millisecond) }()
	select {
	case <-second:
	case <-time.After(10 * time.Second):
		cancel()
		<-done
		t.Fatal("Follow never fetched again after a hung answer")
	}
	cancel()
	require.NoError(t, <-done)
}
