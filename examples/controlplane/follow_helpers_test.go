package controlplane_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/examples/controlplane"
)

// followAnswers runs Follow against a server that answers each of docs in
// turn (ETag "0", "1", ...) and 304 Not Modified after them. handled, if not
// nil, runs on the server's goroutine once the client has handled answer i
// (its next poll came in). followAnswers returns the client once every answer
// has been handled and Follow has ended without error.
func followAnswers(t *testing.T, docs [][]byte, handled func(i int, c *client.Client)) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{Service: "s", Region: "eu"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	var n atomic.Int32
	last := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		if i > 0 && i <= len(docs) {
			if handled != nil {
				handled(i-1, c)
			}
			if i == len(docs) {
				close(last)
			}
		}
		if i < len(docs) {
			w.Header().Set("ETag", strconv.Quote(strconv.Itoa(i)))
			_, _ = w.Write(docs[i])
			return
		}
		w.WriteHeader(http.StatusNotModified)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- controlplane.Follow(ctx, srv.URL, c, time.Millisecond) }()
	<-last
	cancel()
	require.NoError(t, <-done)
	return c
}
