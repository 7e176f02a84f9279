package client_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
)

// A request in flight when Close runs fails with ErrClosed without a retry:
// Close broke its connection, its host did not fail, and the retry sends
// nothing (the closed client opens no pool), so Stats.Retries must not count
// one.
func TestCloseInFlightCountsNoRetry(t *testing.T) {
	got, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	slow := fakeRESP(t, func([]string) string {
		got <- struct{}{}
		<-release
		return "$1\r\nv\r\n"
	})
	other := fakeRESP(t, func([]string) string { return "$1\r\nv\r\n" })
	c := routedClient(t, client.Config{}, slow, other)
	key := keyRouted(t, c, func(tg client.Target) bool { return tg.Host == slow && tg.Next == other })
	done := make(chan error, 1)
	go func() {
		_, err := c.Get(context.Background(), key)
		done <- err
	}()
	<-got
	require.NoError(t, c.Close())
	require.ErrorIs(t, <-done, client.ErrClosed)
	st := c.Stats()
	require.Zero(t, st.Retries, "%+v", st)
	require.EqualValues(t, 1, st.Failures, "%+v", st)
}
