package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConfigRedisAddressTwice: an address named twice among the Redis
// backend's primaries and replicas is refused at start, with an error naming
// it. It was taken: with a replica that is another shard's primary, a GET
// right after a SET through the gateway answered null for about half the
// keys (their shard's reads went to the other shard's server).
func TestConfigRedisAddressTwice(t *testing.T) {
	for _, js := range []string{
		`{"backend": {"kind": "redis", "redis": ["127.0.0.1:7001", "127.0.0.1:7002"], "replicas": [["127.0.0.1:7002"]]}}`,
		`{"backend": {"kind": "redis", "redis": ["127.0.0.1:7001"], "replicas": [["127.0.0.1:7001"]]}}`,
		`{"backend": {"kind": "redis", "redis": ["127.0.0.1:7001"], "replicas": [["127.0.0.1:7101", "127.0.0.1:7101"]]}}`,
		`{"backend": {"kind": "redis", "redis": ["127.0.0.1:7001", "127.0.0.1:7002"], "replicas": [["127.0.0.1:7101"], ["127.0.0.1:7101"]]}}`,
		`{"backend": {"kind": "redis", "redis": ["127.0.0.1:7001", "127.0.0.1:7001"]}}`,
	} {
		t.Run(js, func(t *testing.T) {
			c, err := decodeConfig([]byte(js))
			require.NoError(t, err)
			_, err = c.withDefaults()
			require.ErrorContains(t, err, "named twice")
		})
	}
	c, err := decodeConfig([]byte(`{"backend": {"kind": "redis", "redis": ["127.0.0.1:7001", "127.0.0.1:7002"], "replicas": [["127.0.0.1:7101"], ["127.0.0.1:7102"]]}}`))
	require.NoError(t, err)
	_, err = c.withDefaults()
	require.NoError(t, err)
}
