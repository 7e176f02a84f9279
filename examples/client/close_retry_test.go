package client_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/hashring"
	"github.com/tierkit/tierkit/rollout"
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
	flags, err := rollout.New(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}}})
	require.NoError(t, err)
	ring, err := hashring.New(hashring.Config{}, []hashring.Node{{ID: slow, Weight: 1}, {ID: other, Weight: 1}})
	require.NoError(t, err)
	c, err := client.New(client.Config{Service: "s", Region: "eu"})
	require.NoError(t, err)
	require.NoError(t, c.SetRoutes(client.Routes{Gateways: map[string]*hashring.Ring{"eu": ring}, Rollout: flags}))
	key := ""
	for i := 0; key == ""; i++ {
		if tg, err := c.Route("k" + strconv.Itoa(i)); err == nil && tg.Host == slow && tg.Next == other {
			key = "k" + strconv.Itoa(i)
		}
	}
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
