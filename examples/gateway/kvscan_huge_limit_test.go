package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestKVScanHugeLimitTakenAsMax: a LIMIT above 10,000 is taken as 10,000
// (README), however large: one past the int range was refused with "LIMIT
// must be a positive integer", though it is one, where LIMIT 20000 ran.
func TestKVScanHugeLimitTakenAsMax(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Set(ctx, "hl:a", "1", 0).Err())
	for _, n := range []string{"20000", "9223372036854775807", "99999999999999999999"} {
		res, err := c.Do(ctx, "KVSCAN", "hl:", "hl;", "LIMIT", n).Slice()
		require.NoError(t, err, "LIMIT %s", n)
		require.Equal(t, []any{"hl:a", "1"}, res, "LIMIT %s", n)
		limit, bad := scanLimit([][]byte{[]byte("KVSCAN"), nil, nil, []byte("LIMIT"), []byte(n)})
		require.Equal(t, respErr(""), bad)
		require.Equal(t, maxScan, limit, "LIMIT %s", n)
	}
	for _, n := range []string{"0", "-1", "-99999999999999999999", "x", ""} {
		require.ErrorContains(t, c.Do(ctx, "KVSCAN", "hl:", "hl;", "LIMIT", n).Err(), "LIMIT must be a positive integer", "LIMIT %q", n)
	}
}
