package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
)

// A request whose deadline passes while its host is slow is not retried, and
// the slow host is not ejected: the read bounded by the deadline can fail
// before the context's own timer marks it done, and that failure is the
// caller's deadline, not the host's.
func TestDeadlineAtSlowHostNotRetried(t *testing.T) {
	block := make(chan struct{})
	slow := fakeRESP(t, func([]string) string { <-block; return "$1\r\nv\r\n" })
	t.Cleanup(func() { close(block) }) // runs before fakeRESP's cleanup waits for its handlers
	fast := fakeRESP(t, func([]string) string { return "$1\r\nv\r\n" })
	c := routedClient(t, client.Config{}, slow, fast)
	key := keyRouted(t, c, func(tg client.Target) bool { return tg.Host == slow })
	for i := range 100 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		_, err := c.Get(ctx, key)
		cancel()
		require.Error(t, err)
		st := c.Stats()
		require.Zero(t, st.Retries, "request %d past its deadline was retried: %v", i, err)
		tg, err := c.Route(key)
		require.NoError(t, err)
		require.Equal(t, slow, tg.Host, "request %d: the slow host was ejected by a caller's deadline", i)
	}
}
