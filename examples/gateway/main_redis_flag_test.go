package main

import (
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRedisFlagOverridesFileBackend: -redis wins over the file's Redis
// backend as every other flag wins over its field. -redis "" (the flag's
// default, the embedded memkv) kept the file's Redis shards; and -redis
// a,b kept the file's replicas, lists that name replicas of the file's
// primaries, so the new shards' reads went to replicas of other servers.
func TestRedisFlagOverridesFileBackend(t *testing.T) {
	file := Config{Backend: BackendConfig{Kind: "redis", Redis: []string{"127.0.0.1:7001", "127.0.0.1:7002"},
		Replicas: [][]string{{"127.0.0.1:7101"}, {"127.0.0.1:7102"}}, Client: "go-redis", Pool: 4,
		Username: "gw", Password: "pw"}}
	parse := func(args ...string) Config {
		fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		settingFlags(fs)
		require.NoError(t, fs.Parse(args))
		return applyFlags(fs, file)
	}

	c := parse("-redis", "")
	require.Equal(t, "memkv", c.Backend.Kind)
	require.Empty(t, c.Backend.Redis)
	require.Empty(t, c.Backend.Replicas)
	_, err := c.withDefaults()
	require.NoError(t, err, "-redis \"\" serves the embedded memkv")

	c = parse("-redis", "127.0.0.1:7003,127.0.0.1:7004")
	require.Equal(t, BackendConfig{Kind: "redis", Redis: []string{"127.0.0.1:7003", "127.0.0.1:7004"}, Client: "go-redis", Pool: 4,
		Username: "gw", Password: "pw"}, c.Backend, "the file's login serves the flag's shards")

	c = parse("-redis", "127.0.0.1:7003", "-redis-client", "rueidis")
	require.Equal(t, "rueidis", c.Backend.Client)
	require.Empty(t, c.Backend.Replicas)

	require.Equal(t, file.Backend, parse().Backend, "no flag: the file's backend")
}
