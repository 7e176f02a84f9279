package main

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStartRedisPortTakenByAnotherRedis: freePort's port may be taken before
// redis-server listens on it. When the taker is another redis-server (another
// cluster's shard), the new one fails to bind and exits, but the other one
// answered waitRedis's PING first: startRedis returned a shard whose process
// was dead, at an address served by a process the cluster does not own. It
// now checks the answering server's process_id and tries another port.
func TestStartRedisPortTakenByAnotherRedis(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	other, err := startRedis(ctx)
	require.NoError(t, err)
	t.Cleanup(other.kill)
	_, portText, err := net.SplitHostPort(other.addr)
	require.NoError(t, err)
	taken, err := strconv.Atoi(portText)
	require.NoError(t, err)

	picks := 0
	redisPort = func() (int, error) {
		picks++
		if picks == 1 {
			return taken, nil // taken between freePort and the listen
		}
		return freePort()
	}
	t.Cleanup(func() { redisPort = freePort })

	r, err := startRedis(ctx)
	require.NoError(t, err)
	t.Cleanup(r.kill)
	assert.NotEqual(t, other.addr, r.addr, "the shard is another process's redis-server")
	assert.True(t, r.alive(), "the shard's own redis-server exited")
	assert.Equal(t, 2, picks, "a second port was picked")
}
