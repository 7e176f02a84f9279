package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestMultiKeyWriteOnOneShardIsOneCommit: the keys of an MSET or a DEL that
// share a shard are written by one memkv commit, as Redis applies MSET and
// DEL atomically (the README: MSET and DEL are not atomic across shards only).
// Before, each key was its own commit, and a concurrent MGET of the keys
// (one read version) found some written and others not
// (TestConcurrentInvariants, keys written together by MSET only).
func TestMultiKeyWriteOnOneShardIsOneCommit(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	st := mustMemkv(t, in.gw.backend).stores[in.gw.shard("{t}a")]
	sub := st.Subscribe()
	defer sub.Close()
	c, err := dialRESP(in.Addr())
	require.NoError(t, err)
	defer c.close()

	// versions returns the commit versions of the next n write events.
	versions := func(n int) map[string]uint64 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		out := map[string]uint64{}
		for len(out) < n {
			ev, err := sub.Next(ctx)
			require.NoError(t, err)
			if ev.Kind == memkv.EventWrite {
				out[string(ev.Key)] = ev.Version
			}
		}
		return out
	}
	rs, err := c.do([][]string{{"MSET", "{t}a", "1", "{t}b", "2", "{t}c", "3"}}, false)
	require.NoError(t, err)
	require.Equal(t, "OK", rs[0].s, rs[0].String())
	v := versions(3)
	assert.Equal(t, v["{t}a"], v["{t}b"], "MSET: %v", v)
	assert.Equal(t, v["{t}a"], v["{t}c"], "MSET: %v", v)

	rs, err = c.do([][]string{{"DEL", "{t}a", "{t}nosuch", "{t}b", "{t}a"}}, false)
	require.NoError(t, err)
	require.Equal(t, "2", rs[0].s, rs[0].String())
	v = versions(2)
	assert.Equal(t, v["{t}a"], v["{t}b"], "DEL: %v", v)
	rs, err = c.do([][]string{{"MGET", "{t}a", "{t}b", "{t}c"}}, false)
	require.NoError(t, err)
	assert.Equal(t, "*[$-1 $-1 $\"3\"]", rs[0].String())
}
