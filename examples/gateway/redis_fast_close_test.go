package main

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFastShardClientAfterClose: after close, client fails with
// errShardClosed and dials nothing (the failed dials stay as they were). A
// batch that arrived during a shutdown, after close, dialed a client that
// nobody closed. The shard's address is a closed loopback port, so that a
// dial, if one ran, would fail at once rather than need a Redis.
func TestFastShardClientAfterClose(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	for _, tc := range []struct {
		name       string
		dialsFirst int // calls of client before close, each a failed dial
	}{
		{"never dialed", 0},
		{"after a failed dial", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFastShard(addr, 2, redisAuth{})
			for range tc.dialsFirst {
				_, err := f.client(context.Background())
				require.Error(t, err)
				require.NotErrorIs(t, err, errShardClosed)
			}
			f.close()
			for range 2 { // and stays closed
				c, err := f.client(context.Background())
				assert.Nil(t, c)
				assert.ErrorIs(t, err, errShardClosed)
			}
			assert.Equal(t, uint64(tc.dialsFirst), f.failed.Load(), "client dialed after close")
			f.close() // a second close is harmless
		})
	}
}
