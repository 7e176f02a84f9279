package main

import (
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRedisFlagReplacesFileMemkvShards: -redis replaces a file's memkv
// backend, its shard count included, as -redis "" replaces a file's Redis
// settings. The file's "shards" stayed, and the gateway refused to start
// with "backend shards (-shards) 8 set on the redis backend", blaming a
// flag the command line did not have. -shards beside -redis is still
// refused: the two flags contradict each other.
func TestRedisFlagReplacesFileMemkvShards(t *testing.T) {
	file := Config{Backend: BackendConfig{Shards: 8}}
	parse := func(args ...string) Config {
		fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		settingFlags(fs)
		require.NoError(t, fs.Parse(args))
		return applyFlags(fs, file)
	}

	c, err := parse("-redis", "127.0.0.1:7003,127.0.0.1:7004").withDefaults()
	require.NoError(t, err, "-redis over a file's memkv shards")
	require.Equal(t, "redis", c.Backend.Kind)
	require.Equal(t, []string{"127.0.0.1:7003", "127.0.0.1:7004"}, c.Backend.Redis)

	for _, args := range [][]string{
		{"-redis", "127.0.0.1:7003", "-shards", "2"},
		{"-shards", "2", "-redis", "127.0.0.1:7003"},
	} {
		_, err = parse(args...).withDefaults()
		require.ErrorContains(t, err, "backend shards (-shards) 2 set on the redis backend", "%q", args)
	}

	c, err = parse().withDefaults()
	require.NoError(t, err)
	require.Equal(t, 8, c.Backend.Shards, "no flag: the file's memkv shards")
}

// TestEmptyRedisFlagKeepsFileMemkvShards: -redis "" (the embedded memkv)
// over a file's memkv backend keeps the file's shard count.
func TestEmptyRedisFlagKeepsFileMemkvShards(t *testing.T) {
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	settingFlags(fs)
	require.NoError(t, fs.Parse([]string{"-redis", ""}))
	c, err := applyFlags(fs, Config{Backend: BackendConfig{Shards: 8}}).withDefaults()
	require.NoError(t, err)
	require.Equal(t, 8, c.Backend.Shards)
}
