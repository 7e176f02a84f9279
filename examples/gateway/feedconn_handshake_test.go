package main

import (
	"context"
	"crypto/tls"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestFeedDialSilentTLSShardFails: a shard that accepts the feed's
// connection and never answers its TLS handshake fails the dial within
// feedReadTimeout (and a little), so the feed dials again. The handshake ran
// on the first write, with no deadline: feedDial waited until the shard
// closed the connection, with a context that never ends, forever.
func TestFeedDialSilentTLSShardFails(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c // held open, never written to
		}
	}()

	dialed := make(chan error, 1)
	go func() {
		c, _, done, err := feedDial(context.Background(), ln.Addr().String(), "", "",
			&tls.Config{ServerName: "shard", MinVersion: tls.VersionTLS12}, defaultDialTimeout)
		if err == nil {
			_ = c.Close()
			done()
		}
		dialed <- err
	}()

	var server net.Conn
	select {
	case server = <-accepted:
	case <-time.After(5 * time.Second):
		t.Fatal("the feed never connected")
	}
	defer server.Close()
	start := time.Now()
	select {
	case err := <-dialed:
		require.Error(t, err, "a shard that never answered the handshake")
		require.Less(t, time.Since(start), feedReadTimeout+2*time.Second)
	case <-time.After(feedReadTimeout + 2*time.Second):
		_ = server.Close() // ends the handshake with EOF, so the dial's goroutine exits
		<-dialed
		t.Fatalf("feedDial still in the TLS handshake %v after the shard accepted without answering", feedReadTimeout+2*time.Second)
	}
}
