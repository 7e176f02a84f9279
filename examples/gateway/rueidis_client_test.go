package main

import (
	"context"
	"testing"

	"github.com/redis/rueidis"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/internal/leak"
)

// TestRueidisClient: rueidis, a common Go client (the gateway's own data path
// to Redis shards), turns on server-assisted client-side caching by default
// (CLIENT TRACKING ON OPTIN after HELLO 3). The gateway has no tracking: it
// could not send the invalidations a client cache needs, so accepting the
// command would leave every rueidis cache stale for good. It refuses it as
// an unknown subcommand, which rueidis reports as ErrNoCache at NewClient
// (as with Redis before 6 or a proxy such as twemproxy); with DisableCache
// the client works, DoCache included (then a plain read). The README says
// so. Found by a review.
func TestRueidisClient(t *testing.T) {
	leak.Check(t)
	in := startGateway(t, Config{})
	ctx := context.Background()

	_, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{in.Addr()}})
	require.Error(t, err)
	assert.ErrorIs(t, err, rueidis.ErrNoCache, "refused tracking reads as a server without client-side caching")

	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{in.Addr()}, DisableCache: true})
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.Do(ctx, c.B().Set().Key("rk").Value("v1").Build()).Error())
	v, err := c.Do(ctx, c.B().Get().Key("rk").Build()).ToString()
	require.NoError(t, err)
	assert.Equal(t, "v1", v)
	v, err = c.DoCache(ctx, c.B().Get().Key("rk").Cache(), 60e9).ToString()
	require.NoError(t, err)
	assert.Equal(t, "v1", v)
	// DoCache with caching disabled is a plain read: it sees the next write.
	require.NoError(t, c.Do(ctx, c.B().Set().Key("rk").Value("v2").Build()).Error())
	v, err = c.DoCache(ctx, c.B().Get().Key("rk").Cache(), 60e9).ToString()
	require.NoError(t, err)
	assert.Equal(t, "v2", v)
	res := c.DoMulti(ctx, c.B().Mset().KeyValue().KeyValue("ra", "1").KeyValue("rb", "2").Build(),
		c.B().Mget().Key("ra", "rb", "rk").Build())
	require.NoError(t, res[0].Error())
	vals, err := res[1].AsStrSlice()
	require.NoError(t, err)
	assert.Equal(t, []string{"1", "2", "v2"}, vals)
}
