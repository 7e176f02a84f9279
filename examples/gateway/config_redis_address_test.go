package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConfigRedisAddressSpaces: a Redis address with a space around it
// (-redis "127.0.0.1:7001, 127.0.0.1:7002", or the same in the file) is
// refused at start with an error naming it. It was taken: the gateway
// served, and every command on that shard's keys failed with "lookup
// 127.0.0.1: no such host" (its clients dialled " 127.0.0.1:7002"); such
// a replica was never reached, its reads falling back to the primary.
func TestConfigRedisAddressSpaces(t *testing.T) {
	for _, js := range []string{
		`{"backend": {"kind": "redis", "redis": ["127.0.0.1:7001", " 127.0.0.1:7002"]}}`,
		`{"backend": {"kind": "redis", "redis": ["127.0.0.1:7001 "]}}`,
		`{"backend": {"kind": "redis", "redis": ["127.0.0.1:7001"], "replicas": [["127.0.0.1:7101", "\t127.0.0.1:7102"]]}}`,
	} {
		t.Run(js, func(t *testing.T) {
			c, err := decodeConfig([]byte(js))
			require.NoError(t, err)
			_, err = c.withDefaults()
			require.ErrorContains(t, err, "gateway: backend redis or replicas: address")
			require.ErrorContains(t, err, `127.0.0.1:7`)
		})
	}
}
