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
	"github.com/tierkit/tierkit/rollout"
)

// Follow applied any document whose (epoch, version) differed from the one in
// force, so a stale answer of the same plane (an older version, from a cache or
// a lagging replica of the URL) rolled the client back to routes the plane had
// replaced. Only a newer version, or another epoch (a restarted plane), applies.
func TestFollowKeepsNewerVersion(t *testing.T) {
	p, _ := twoRegions(t, 1.5)
	v1 := wireOf(t, p)
	require.NoError(t, p.SetRollout(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}}}))
	v2 := wireOf(t, p)

	third := make(chan struct{})
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1:
			w.Header().Set("ETag", `"v2"`)
			_, _ = w.Write(v2)
		case 2: // stale: the version before the one the client has
			w.Header().Set("ETag", `"v1"`)
			_, _ = w.Write(v1)
		case 3: // the answer to the second fetch has been handled
			close(third)
			w.WriteHeader(http.StatusNotModified)
		default:
			w.WriteHeader(http.StatusNotModified)
		}
	}))
	defer srv.Close()
	c, err := client.New(client.Config{Service: "s", Region: "eu"})
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- controlplane.Follow(ctx, srv.URL, c, time.Millisecond) }()
	<-third
	cancel()
	require.NoError(t, <-done)
	r, ok := c.Routes()
	require.True(t, ok)
	require.Len(t, r.Rollout.Config().Rules, 1, "version 2's rollout was replaced by version 1's")
	require.Equal(t, uint64(1), c.Stats().Swaps)
}
