package client_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
)

// A gateway relays a backend shard's LOADING to the GETs of that shard's keys
// (every gateway fronts the same shards): the gateway answered, it did not
// fail. The request is retried on the next gateway, but neither gateway is
// ejected: ejecting them moved every other key they own, on healthy shards,
// to the remaining gateways for EjectFor, so that one loading shard herded
// the client's traffic onto a single gateway.
func TestShardLoadingEjectsNoGateway(t *testing.T) {
	const loadingKey = "on-the-loading-shard"
	reply := func(args []string) string {
		if len(args) > 1 && args[1] == loadingKey {
			return "-LOADING Redis is loading the dataset in memory\r\n"
		}
		return "$1\r\nv\r\n"
	}
	hosts := []string{fakeRESP(t, reply), fakeRESP(t, reply), fakeRESP(t, reply)}
	c := routedClient(t, client.Config{}, hosts...)
	before := map[string]string{}
	for i := range 300 {
		k := "k" + strconv.Itoa(i)
		tg, err := c.Route(k)
		require.NoError(t, err)
		before[k] = tg.Host
	}

	_, err := c.Get(context.Background(), loadingKey)
	require.ErrorContains(t, err, "LOADING")
	require.Equal(t, uint64(1), c.Stats().Retries, "a not-ready reply is retried once")

	for k, owner := range before {
		tg, err := c.Route(k)
		require.NoError(t, err)
		require.Equal(t, owner, tg.Host, "key %s left its gateway: a relayed LOADING ejected it", k)
	}
	v, err := c.Get(context.Background(), "k0")
	require.NoError(t, err)
	require.Equal(t, "v", v)
	require.Zero(t, c.Stats().Skipped)
}
