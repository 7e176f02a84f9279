package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConfigRedisAddressNeedsPort: a Redis address that is not host:port
// with a port to dial (-redis 127.0.0.1, the port forgotten; a URL; a port
// that is no number or service, or 0) is refused at start with an error
// naming it. It was taken: the gateway served, and every command on that
// shard's keys failed with "dial tcp: address 127.0.0.1: missing port in
// address", an address no dial can ever reach.
func TestConfigRedisAddressNeedsPort(t *testing.T) {
	for _, js := range []string{
		`{"backend": {"kind": "redis", "redis": ["127.0.0.1"]}}`,
		`{"backend": {"kind": "redis", "redis": ["127.0.0.1:7001", "[::1]"]}}`,
		`{"backend": {"kind": "redis", "redis": ["redis://127.0.0.1:7001"]}}`,
		`{"backend": {"kind": "redis", "redis": ["127.0.0.1:"]}}`,
		`{"backend": {"kind": "redis", "redis": ["127.0.0.1:no-such-port"]}}`,
		`{"backend": {"kind": "redis", "redis": ["127.0.0.1:0"]}}`,
		`{"backend": {"kind": "redis", "redis": ["127.0.0.1:70001"]}}`,
		`{"backend": {"kind": "redis", "redis": ["127.0.0.1:7001"], "replicas": [["127.0.0.1"]]}}`,
	} {
		t.Run(js, func(t *testing.T) {
			c, err := decodeConfig([]byte(js))
			require.NoError(t, err)
			_, err = c.withDefaults()
			require.ErrorContains(t, err, "gateway: backend redis or replicas: address")
			require.ErrorContains(t, err, "host:port")
		})
	}
	for _, addr := range []string{"127.0.0.1:7001", "[::1]:7001", "localhost:7001", "redis.internal:7001"} {
		_, err := Config{Backend: BackendConfig{Kind: "redis", Redis: []string{addr}}}.withDefaults()
		require.NoError(t, err, addr)
	}
}
