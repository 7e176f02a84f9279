package client_test

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/rollout"
)

// TestMGetOneCommandPerHost: MGet sends one MGET per host (and retry host),
// whatever made the rollout decide the path. Keys of one shard that stayed
// direct for different reasons (no rule for the key, a rule holding it
// below its percentage) went out as one MGET per reason, because the
// grouping key was the whole Target, its Reason included.
func TestMGetOneCommandPerHost(t *testing.T) {
	var mgets atomic.Int64
	addr := fakeRESP(t, func(args []string) string {
		if strings.EqualFold(args[0], "mget") {
			mgets.Add(1)
		}
		return "*" + strconv.Itoa(len(args)-1) + "\r\n" + strings.Repeat("$-1\r\n", len(args)-1)
	})
	flags, err := rollout.New(rollout.Config{Rules: []rollout.Rule{{Service: "s", Prefix: "in:", Percent: 0}}})
	require.NoError(t, err)
	c, err := client.New(client.Config{Service: "s", Region: "eu"})
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetRoutes(client.Routes{Rollout: flags, Direct: []string{addr}}))
	held, err := c.Route("in:a")
	require.NoError(t, err)
	free, err := c.Route("out:a")
	require.NoError(t, err)
	require.Equal(t, held.Host, free.Host, "one shard")
	require.NotEqual(t, held.Reason, free.Reason, "direct for different reasons")

	got, err := c.MGet(context.Background(), "in:a", "out:a", "in:b", "out:b")
	require.NoError(t, err)
	assert.Equal(t, make([]client.Value, 4), got)
	assert.EqualValues(t, 1, mgets.Load(), "MGET commands sent to the one shard")
	assert.EqualValues(t, 1, c.Stats().Direct, "requests sent")
}
