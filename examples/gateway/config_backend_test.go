package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConfigBackendRedisNeedsKind: Redis settings (shard addresses,
// replicas, a data-path client) under a backend whose kind is memkv, said or
// left to the default, are refused with an error that names the kind. The
// gateway started on the embedded memkv store instead, ignoring the
// addresses: a file that forgot "kind": "redis" served and acknowledged
// writes from process memory, lost at the next restart.
func TestConfigBackendRedisNeedsKind(t *testing.T) {
	for _, js := range []string{
		`{"backend": {"redis": ["127.0.0.1:7001"]}}`,
		`{"backend": {"kind": "memkv", "redis": ["127.0.0.1:7001", "127.0.0.1:7002"]}}`,
		`{"backend": {"replicas": [["127.0.0.1:7101"]]}}`,
		`{"backend": {"client": "go-redis"}}`,
	} {
		t.Run(js, func(t *testing.T) {
			c, err := decodeConfig([]byte(js))
			require.NoError(t, err)
			_, err = c.withDefaults()
			require.ErrorContains(t, err, `"kind": "redis"`)
		})
	}
	// The same settings with the kind said are accepted.
	c, err := decodeConfig([]byte(`{"backend": {"kind": "redis", "redis": ["127.0.0.1:7001"], "replicas": [["127.0.0.1:7101"]], "client": "go-redis"}}`))
	require.NoError(t, err)
	c, err = c.withDefaults()
	require.NoError(t, err)
	require.Equal(t, "redis", c.Backend.Kind)
}
