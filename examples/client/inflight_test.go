package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
)

// TestStatsInFlight: Stats.InFlight counts, per host, the attempts sent there
// without an outcome yet (those a host that dies now fails): 2 GETs the host
// holds, then none once it answers them.
func TestStatsInFlight(t *testing.T) {
	release := make(chan struct{})
	held := make(chan struct{}, 2)
	addr := fakeRESP(t, func(args []string) string {
		if len(args) > 0 && args[0] == "get" {
			held <- struct{}{}
			<-release
			return "$-1\r\n"
		}
		return "+OK\r\n"
	})
	c := routedClient(t, client.Config{PoolSize: 2}, addr)
	assert.Equal(t, 0, c.Stats().InFlight[addr], "no pool yet")
	done := make(chan error, 2)
	for i := range 2 {
		go func() {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			_, err := c.Get(ctx, "k"+string(rune('0'+i)))
			done <- err
		}()
	}
	<-held
	<-held
	assert.Equal(t, 2, c.Stats().InFlight[addr], "both GETs wait on the host")
	close(release)
	for range 2 {
		require.ErrorIs(t, <-done, client.ErrNotFound)
	}
	assert.Equal(t, 0, c.Stats().InFlight[addr], "answered")
}
