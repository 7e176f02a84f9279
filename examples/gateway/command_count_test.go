package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestCommandCountIsTableSize: COMMAND COUNT answers the number of entries
// COMMAND answers, as Redis's does (both read its command table), and COMMAND
// LIST names as many. The gateway has no command table (README): COMMAND and
// COMMAND LIST answer an empty array, so clients use their own tables. Before,
// COMMAND COUNT answered the 28 commands the gateway serves, a table of 28
// that COMMAND, COMMAND LIST and COMMAND INFO do not have.
func TestCommandCountIsTableSize(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	ctx := context.Background()
	c := client(t, in, &redis.Options{})
	table, err := c.Command(ctx).Result() // go-redis parses COMMAND's entries
	require.NoError(t, err)
	list, err := c.CommandList(ctx, nil).Result()
	require.NoError(t, err)
	count, err := c.Do(ctx, "COMMAND", "COUNT").Int64()
	require.NoError(t, err)
	require.Equal(t, int64(len(table)), count, "COMMAND COUNT counts COMMAND's entries")
	require.Len(t, list, len(table), "COMMAND LIST names COMMAND's entries")
}
