package main

import (
	"fmt"
	"hash/maphash"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/redcon"

	"github.com/tierkit/tierkit/internal/leak"
)

// TestPlainPartDedup: a part finds its GETs by a scan up to smallPart ops and
// by its index after, with the same answers either way; SETs are never
// matched, and a reused part starts empty.
func TestPlainPartDedup(t *testing.T) {
	sp := &pipeScratch{}
	for _, n := range []int{3, smallPart, smallPart + 1, 40, 2} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			p := sp.plainParts(1, n)[0]
			require.Empty(t, p.ops)
			_, found := p.getIndex("k0")
			require.False(t, found, "a reused part starts empty")
			p.ops = append(p.ops, op{kind: opSet, key: "set"})
			for i := range n {
				key := fmt.Sprintf("k%d", i)
				_, dup := p.getIndex(key)
				require.False(t, dup)
				p.ops = append(p.ops, op{kind: opGet, key: key})
				p.addGet(key, len(p.ops)-1)
			}
			for i := range n {
				pos, dup := p.getIndex(fmt.Sprintf("k%d", i))
				require.True(t, dup)
				assert.Equal(t, i+1, pos)
			}
			_, dup := p.getIndex("set")
			assert.False(t, dup, "a SET is not a GET to share")
			assert.Equal(t, n+1 > smallPart, p.indexed)
		})
	}
}

// TestStringBytes: a value keeps its bytes, and an empty one stays non-nil
// (a nil value is replied as a missing key).
func TestStringBytes(t *testing.T) {
	for _, s := range []string{"", "v", string(make([]byte, 100))} {
		b := stringBytes(s)
		require.NotNil(t, b)
		assert.Equal(t, s, string(b))
	}
	assert.Equal(t, "key", argString([]byte("key")))
}

// TestCachedPipeline: with the caching tier on, a pipelined run of GETs,
// MGETs and SETs goes through the cache shard by shard (cachedParts): the
// first run loads what the caches miss with one load per shard, the same
// reads after are all hits with no backend call, missing keys read as null,
// a key read twice is answered twice, and a write is read back by the next
// run (execute splits a run at a read after a write of the same key).
func TestCachedPipeline(t *testing.T) {
	leak.Check(t)
	ss := benchSession(t, Config{HTTPAddr: "-", CacheCapacity: 1000, CacheStaleness: Duration(time.Minute)})
	g := ss.g
	cmd := func(args ...string) redcon.Command {
		c := redcon.Command{}
		for _, a := range args {
			c.Args = append(c.Args, []byte(a))
		}
		return c
	}
	const n = 40
	var sets []redcon.Command
	want := map[string]string{}
	for i := range n {
		if i%5 == 4 {
			continue // missing: read as null
		}
		k, v := fmt.Sprintf("k:%d", i), fmt.Sprintf("v%d", i)
		want[k] = v
		sets = append(sets, cmd("SET", k, v))
	}
	for _, r := range ss.execute(sets) {
		require.Equal(t, simple("OK"), r)
	}
	syncMemkvFeed(t, g)

	var reads []redcon.Command
	var keys []string
	shards := map[int]bool{}
	for i := range n {
		k := fmt.Sprintf("k:%d", i)
		reads = append(reads, cmd("GET", k))
		keys = append(keys, k)
		shards[g.shard(k)] = true
	}
	reads = append(reads, cmd("GET", "k:3"), cmd("MGET", "k:1", "k:4", "k:7"))
	check := func(replies []any) {
		t.Helper()
		require.Len(t, replies, len(reads))
		for i, k := range keys {
			assert.Equal(t, want[k], replyString(t, replies[i]), "GET %s", k)
		}
		assert.Equal(t, want["k:3"], replyString(t, replies[n]))
		assert.Equal(t, bulks{[]byte("v1"), nil, []byte("v7")}, replies[n+1])
	}
	loads := g.cache.stats()["loads"]
	calls := g.n.backendCalls.Load()
	r := ss.execute(append(reads, cmd("SET", "other", "x")))
	check(r[:len(reads)])
	assert.Equal(t, simple("OK"), r[len(reads)])
	assert.Equal(t, uint64(len(shards)), g.cache.stats()["loads"]-loads, "one load per shard")
	assert.LessOrEqual(t, g.n.backendCalls.Load()-calls, uint64(2*len(shards)), "a batch item per shard for the loads, one for the SET")

	calls = g.n.backendCalls.Load()
	hits := g.cache.stats()["hits"]
	for range 3 {
		check(ss.execute(reads))
	}
	assert.Equal(t, calls, g.n.backendCalls.Load(), "hits make no backend call")
	// Each key read is a hit, missing or read twice in a run too: n GETs,
	// GET k:3 again and the MGET's 3 keys, 3 times.
	assert.Equal(t, uint64(3*(n+1+3)), g.cache.stats()["hits"]-hits, "hits of the 3 runs")

	r = ss.execute([]redcon.Command{cmd("SET", "k:1", "new"), cmd("GET", "k:1"), cmd("GET", "k:2")})
	assert.Equal(t, []any{simple("OK"), "new", want["k:2"]}, []any{r[0], replyString(t, r[1]), replyString(t, r[2])}, "read-your-writes")

	// A value with a TTL is cached with its expiry, and a pipelined read
	// after the expiry reloads it (expiry makes no feed event).
	require.Equal(t, simple("OK"), ss.execute([]redcon.Command{cmd("SET", "ttl", "x", "PX", "50")})[0])
	pair := []redcon.Command{cmd("GET", "ttl"), cmd("GET", "k:2")}
	r = ss.execute(pair)
	require.Equal(t, "x", replyString(t, r[0]))
	// The TTL runs on the wall clock.
	eventually(t, "a cached value outlived its TTL", func() bool { return replyString(t, ss.execute(pair)[0]) == "" })
}

// replyString is a GET reply's value ("" for null).
func replyString(t *testing.T, r any) string {
	t.Helper()
	switch r := r.(type) {
	case bulkRef:
		return string(*r.v)
	case nullReply:
		return ""
	}
	t.Fatalf("not a GET reply: %#v", r)
	return ""
}

// TestKeyLayout: the keys each command's layout finds among its arguments,
// as copies (ACLs, transactions) and as the hashes that order a pipeline.
func TestKeyLayout(t *testing.T) {
	args := func(s ...string) [][]byte {
		a := make([][]byte, len(s))
		for i, x := range s {
			a[i] = []byte(x)
		}
		return a
	}
	for _, tc := range []struct {
		cmd  []string
		want []string
	}{
		{[]string{"GET", "k"}, []string{"k"}},
		{[]string{"SET", "k", "v", "EX", "10"}, []string{"k"}},
		{[]string{"INCRBY", "k", "5"}, []string{"k"}},
		{[]string{"MGET", "a", "b", "c"}, []string{"a", "b", "c"}},
		{[]string{"DEL", "a"}, []string{"a"}},
		{[]string{"MSET", "a", "1", "b", "2"}, []string{"a", "b"}},
		{[]string{"KVSCAN", "a", "b", "COUNT", "5"}, []string{"a", "b"}},
		{[]string{"PING"}, nil},
		{[]string{"ECHO", "x"}, nil},
	} {
		spec := commands[tc.cmd[0]]
		a := args(tc.cmd...)
		if tc.want == nil {
			assert.False(t, spec.hasKeys(), tc.cmd[0])
			assert.Empty(t, spec.keys(a), tc.cmd[0])
			assert.Empty(t, keyHashes(nil, spec.layout, a), tc.cmd[0])
			continue
		}
		assert.Equal(t, tc.want, spec.keys(a), tc.cmd[0])
		hs := keyHashes(nil, spec.layout, a)
		require.Len(t, hs, len(tc.want), tc.cmd[0])
		for i, k := range tc.want {
			assert.Equal(t, maphash.Bytes(conflictSeed, []byte(k)), hs[i], "%s key %d", tc.cmd[0], i)
		}
	}
}

// TestCachedPipelineKeysCopied: a pipelined run reads its GETs' keys in the
// commands' own bytes, and the caching tier copies the keys it loads, which
// its caches keep (a key that shared them would keep the request's whole
// read buffer alive): rewriting the requests' bytes after the run, which
// would corrupt a shared key, leaves the cached keys intact, so the same
// reads, in fresh buffers, are all hits.
func TestCachedPipelineKeysCopied(t *testing.T) {
	leak.Check(t)
	ss := benchSession(t, Config{HTTPAddr: "-", CacheCapacity: 1000, CacheStaleness: Duration(time.Minute)})
	g := ss.g
	reads := func() []redcon.Command {
		var cmds []redcon.Command
		for i := range 32 {
			cmds = append(cmds, redcon.Command{Args: [][]byte{[]byte("GET"), fmt.Appendf(nil, "key:%02d", i)}})
		}
		return cmds
	}
	var sets []redcon.Command
	for i := range 32 {
		sets = append(sets, redcon.Command{Args: [][]byte{[]byte("SET"), fmt.Appendf(nil, "key:%02d", i), fmt.Appendf(nil, "v%d", i)}})
	}
	ss.execute(sets)
	syncMemkvFeed(t, g)

	first := reads()
	for i, r := range ss.execute(first) {
		require.Equal(t, fmt.Sprintf("v%d", i), replyString(t, r))
	}
	for _, c := range first {
		copy(c.Args[1], "XXXXXX") // a key sharing these bytes would change
	}
	calls, hits := g.n.backendCalls.Load(), g.cache.stats()["hits"]
	for i, r := range ss.execute(reads()) {
		require.Equal(t, fmt.Sprintf("v%d", i), replyString(t, r))
	}
	assert.Equal(t, calls, g.n.backendCalls.Load(), "every read a hit: no backend call")
	assert.Equal(t, uint64(32), g.cache.stats()["hits"]-hits)
}
