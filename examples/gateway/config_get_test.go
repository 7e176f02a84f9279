package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestConfigGetPatternsOverlap: a setting that several patterns of one CONFIG
// GET match is answered once, as Redis does. Twice, it was a RESP3 map with a
// repeated key.
func TestConfigGetPatternsOverlap(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	c := client(t, in, &redis.Options{Protocol: 2})
	got, err := c.Do(context.Background(), "CONFIG", "GET", "save", "*", "max*").Slice()
	require.NoError(t, err)
	require.Len(t, got, 2*len(configValues), "one pair per setting: %q", got)
	seen := map[any]bool{}
	for i := 0; i < len(got); i += 2 {
		require.False(t, seen[got[i]], "%v answered twice", got[i])
		seen[got[i]] = true
	}
}
