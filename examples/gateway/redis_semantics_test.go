package main

import (
	"context"
	"io"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawExchange writes in on a fresh connection, half-closes it and returns all
// the server wrote before it closed the connection.
func rawExchange(t *testing.T, in *instance, data string) string {
	t.Helper()
	return exchangeAt(t, in.Addr(), data)
}

// A RESP2 connection that pipelines "GET missing" and "HELLO 3" must get
// the GET's null as RESP2 ($-1): it was sent before HELLO switched protocol.
// The server encodes every reply of a chunk with the protocol in force after
// the whole chunk ran.
func TestHelloInPipelineKeepsEarlierRepliesRESP2(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	out := rawExchange(t, in, "GET review:missing\r\nHELLO 3\r\n")
	assert.True(t, strings.HasPrefix(out, "$-1\r\n%7\r\n"), "got %q", out)
}

// UNWATCH inside MULTI is queued by Redis (EXEC then answers it with OK),
// and by the gateway: the transaction runs, its other commands applied.
func TestUnwatchInsideMulti(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	ctx := context.Background()
	c := client(t, in, nil)
	cn := c.Conn()
	defer cn.Close()
	require.NoError(t, cn.Do(ctx, "MULTI").Err())
	assert.Equal(t, "QUEUED", cn.Do(ctx, "UNWATCH").Val())
	assert.Equal(t, "QUEUED", cn.Do(ctx, "SET", "{r}u", "1").Val())
	res, err := cn.Do(ctx, "EXEC").Result()
	require.NoError(t, err)
	assert.Equal(t, []any{"OK", "OK"}, res)
	assert.Equal(t, "1", c.Get(ctx, "{r}u").Val())
}

// MSET with an odd argument count passes the arity check, so Redis queues
// it and EXEC answers that command with "wrong number of arguments",
// writing none of its pairs. The gateway's txCommand drops the dangling key,
// writes the others and answers OK.
func TestTxMSetOddArgs(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	ctx := context.Background()
	c := client(t, in, nil)
	cn := c.Conn()
	defer cn.Close()
	require.NoError(t, cn.Do(ctx, "MULTI").Err())
	require.Equal(t, "QUEUED", cn.Do(ctx, "MSET", "{r}x", "1", "{r}y").Val())
	res, err := cn.Do(ctx, "EXEC").Slice()
	require.NoError(t, err)
	require.Len(t, res, 1)
	assert.Implements(t, (*redis.Error)(nil), res[0], "EXEC's MSET reply: %v", res[0])
	assert.ErrorIs(t, c.Get(ctx, "{r}x").Err(), redis.Nil, "nothing of a failed MSET is written")
}

// SET's option errors inside MULTI: Redis answers "syntax error" for NX+XX
// and for two expiries (EX and PX), as the gateway itself does outside a
// transaction; txSet accepts both.
func TestTxSetOptionErrors(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	ctx := context.Background()
	c := client(t, in, nil)
	require.Error(t, c.Do(ctx, "SET", "{r}s", "1", "EX", "5", "PX", "100").Err(), "outside MULTI")
	cn := c.Conn()
	defer cn.Close()
	require.NoError(t, cn.Do(ctx, "MULTI").Err())
	require.Equal(t, "QUEUED", cn.Do(ctx, "SET", "{r}s", "1", "NX", "XX").Val())
	require.Equal(t, "QUEUED", cn.Do(ctx, "SET", "{r}s", "2", "EX", "5", "PX", "100").Val())
	res, err := cn.Do(ctx, "EXEC").Slice()
	require.NoError(t, err)
	require.Len(t, res, 2)
	assert.Implements(t, (*redis.Error)(nil), res[0], "SET NX XX in EXEC: %v", res[0])
	assert.Implements(t, (*redis.Error)(nil), res[1], "SET EX PX in EXEC: %v", res[1])
	assert.ErrorIs(t, c.Get(ctx, "{r}s").Err(), redis.Nil)
}

// EXEC must fail (null) when a WATCHed key changed, whatever the transaction
// queued. A transaction with no writes (here PING, or GETs) commits in txn
// without validation, so the WATCH is ignored.
func TestReadOnlyExecHonoursWatch(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	ctx := context.Background()
	c := client(t, in, nil)
	other := client(t, in, nil)
	cn := c.Conn()
	defer cn.Close()
	require.NoError(t, cn.Do(ctx, "WATCH", "{r}w").Err())
	require.NoError(t, other.Set(ctx, "{r}w", "changed", 0).Err())
	require.NoError(t, cn.Do(ctx, "MULTI").Err())
	require.Equal(t, "QUEUED", cn.Do(ctx, "GET", "{r}w").Val())
	res, err := cn.Do(ctx, "EXEC").Result()
	assert.ErrorIs(t, err, redis.Nil, "EXEC after a watched key changed answered %v", res)
}

// After WATCH, a connection's own SET is invisible to its next GET (served
// from the snapshot taken at WATCH): Redis answers the new value.
func TestWatchKeepsOwnWrites(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	ctx := context.Background()
	c := client(t, in, nil)
	cn := c.Conn()
	defer cn.Close()
	require.NoError(t, cn.Set(ctx, "{r}o", "old", 0).Err())
	require.NoError(t, cn.Do(ctx, "WATCH", "{r}o").Err())
	require.NoError(t, cn.Set(ctx, "{r}o", "new", 0).Err())
	assert.Equal(t, "new", cn.Get(ctx, "{r}o").Val())
}

// Redis parses integers strictly (string2ll): "01", "+1", "-0" are not
// integers, so INCR of such a value, and INCRBY by such an increment, fail.
func TestIncrStrictIntegers(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	ctx := context.Background()
	c := client(t, in, nil)
	for _, v := range []string{"01", "+1", "-0", " 1"} {
		require.NoError(t, c.Set(ctx, "r:i", v, 0).Err())
		n, err := c.Incr(ctx, "r:i").Result()
		assert.Error(t, err, "INCR of %q answered %d", v, n)
	}
	require.NoError(t, c.Del(ctx, "r:j").Err())
	n, err := c.Do(ctx, "INCRBY", "r:j", "+5").Result()
	assert.Error(t, err, "INCRBY +5 answered %v", n)
}

// EXEC aborted by a changed WATCHed key answers a null ARRAY in RESP2
// (*-1), as Redis does; the gateway writes a null bulk string ($-1).
func TestExecAbortNullArrayRESP2(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	ctx := context.Background()
	conn, err := net.Dial("tcp", in.Addr())
	require.NoError(t, err)
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	_, err = conn.Write([]byte("WATCH {r}a\r\n"))
	require.NoError(t, err)
	buf := make([]byte, 64)
	n, err := conn.Read(buf)
	require.NoError(t, err)
	require.Equal(t, "+OK\r\n", string(buf[:n]))
	require.NoError(t, client(t, in, nil).Set(ctx, "{r}a", "x", 0).Err())
	_, err = conn.Write([]byte("MULTI\r\nSET {r}a y\r\nEXEC\r\n"))
	require.NoError(t, err)
	require.NoError(t, conn.(*net.TCPConn).CloseWrite())
	out, err := io.ReadAll(conn)
	require.NoError(t, err)
	assert.Equal(t, "+OK\r\n+QUEUED\r\n*-1\r\n", string(out))
}

// KVSCAN's ACL check confines the range only if begin and end share one
// allowed prefix: a tenant allowed "a:" and "c:" scans "b:" keys too.
func TestKVScanACLTwoPrefixes(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{
		{Name: "default"},
		{Name: "ac", Password: "p", KeyPrefixes: []string{"a:", "c:"}},
	}})
	ctx := context.Background()
	require.NoError(t, client(t, in, nil).Set(ctx, "b:secret", "s3cret", 0).Err())
	c := client(t, in, &redis.Options{Username: "ac", Password: "p"})
	require.ErrorContains(t, c.Get(ctx, "b:secret").Err(), "NOPERM", "b: is not the tenant's")
	res, err := c.Do(ctx, "KVSCAN", "a:", "c:").Result()
	if err == nil {
		assert.NotContains(t, res, "s3cret", "KVSCAN returned another prefix's key: %v", res)
	}
}

// max_request_bytes bounds one command; a command larger than the limit that
// arrives in one read is served when it fits in the reader's buffer (4096
// bytes at first, or limit+1).
func TestReaderLimitOneRead(t *testing.T) {
	for _, tc := range []struct{ limit, size int }{{100, 1000}, {5000, 4978}} {
		cmd := "*2\r\n$4\r\nECHO\r\n$" + itoa(tc.size) + "\r\n" + strings.Repeat("a", tc.size) + "\r\n"
		rr := newRESPReader(strings.NewReader(cmd), tc.limit)
		got, err := readAll(rr.ReadCommands)
		assert.ErrorIs(t, err, errTooLarge, "a command of %d bytes, limit %d: served %d commands", len(cmd), tc.limit, len(got))
	}
}

// MSET sets its keys in order, so a key named twice keeps its later value.
// With the caching tier on, Gateway.run hands each op but the last to a
// worker, and the two SETs of one key race.
func TestMSetRepeatedKeyWithCacheTier(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", CacheCapacity: 1000})
	ctx := context.Background()
	c := client(t, in, nil)
	bad := 0
	for i := range 300 {
		k := "r:m" + itoa(i)
		require.NoError(t, c.MSet(ctx, k, "first", k, "second").Err())
		if c.Get(ctx, k).Val() != "second" {
			bad++
		}
	}
	assert.Zero(t, bad, "MSET k first k second left k = first")
}

// SET EX accepts up to 2^40 seconds, but n*time.Second overflows
// time.Duration above ~9.2e9 s, and now+ttl overflows UnixNano past 2262:
// Redis keeps these keys (TTLs of 253 and 584 years); the gateway drops the
// first at once and the second after ~0.3 s.
func TestSetLongEXKept(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Do(ctx, "SET", "r:e1", "v", "EX", "8000000000").Err())
	assert.Equal(t, "v", c.Get(ctx, "r:e1").Val(), "EX 8000000000 (253 years)")
	require.NoError(t, c.Do(ctx, "SET", "r:e2", "v", "EX", "18446744074").Err())
	assert.Equal(t, "v", c.Get(ctx, "r:e2").Val(), "EX 18446744074 (584 years)")
	// That one wrapped to about 290 ms: the TTL itself must not wrap.
	for _, n := range []int64{18446744074, 1 << 40, math.MaxInt64} {
		assert.Greater(t, expireTTL("EX", n), 200*365*24*time.Hour, "EX %d", n)
		assert.Greater(t, expireTTL("PX", n), time.Duration(min(n, 1<<40))*time.Millisecond/2, "PX %d", n)
	}
}

// After WATCH, reads whose keys map to the transaction's shard are served
// by txCommand, which does not know KVSCAN: a KVSCAN after WATCH fails
// (always with one shard).
func TestKVScanAfterWatch(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Backend: BackendConfig{Kind: "memkv", Shards: 1}})
	ctx := context.Background()
	c := client(t, in, nil)
	cn := c.Conn()
	defer cn.Close()
	require.NoError(t, cn.Set(ctx, "b", "1", 0).Err())
	require.NoError(t, cn.Do(ctx, "WATCH", "x").Err())
	res, err := cn.Do(ctx, "KVSCAN", "a", "z").Result()
	require.NoError(t, err)
	assert.Equal(t, []any{"b", "1"}, res)
}

// A HELLO that fails (here on a bad option) must change nothing, as in
// Redis, which parses every option before it authenticates; the gateway
// switches the connection to the AUTH user first, then answers the error.
func TestFailedHelloKeepsUser(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{
		{Name: "default"},
		{Name: "shop", Password: "p", KeyPrefixes: []string{"shop:"}},
	}})
	out := rawExchange(t, in, "HELLO 2 AUTH shop p BOGUS\r\nGET other\r\n")
	assert.Equal(t, "-ERR Syntax error in HELLO option 'BOGUS'\r\n$-1\r\n", out)
}

// The same on Redis shards: a transaction with no writes commits without
// the shard's check, so a watched key changed directly on the shard does
// not abort EXEC.
func TestRedisReadOnlyExecHonoursWatch(t *testing.T) {
	gw, direct := redisTxSetup(t)
	ctx := context.Background()
	require.NoError(t, direct.Set(ctx, "rw", "a", 0).Err())
	cn := gw.Conn()
	defer cn.Close()
	require.NoError(t, cn.Do(ctx, "WATCH", "rw").Err())
	require.NoError(t, direct.Set(ctx, "rw", "b", 0).Err())
	require.NoError(t, cn.Do(ctx, "MULTI").Err())
	require.Equal(t, "QUEUED", cn.Do(ctx, "PING").Val())
	res, err := cn.Do(ctx, "EXEC").Result()
	assert.ErrorIs(t, err, redis.Nil, "EXEC after a watched key changed answered %v", res)
}

// A transaction command refused for its arity inside MULTI fails the
// transaction, as any refused command does in Redis; a refused EXEC
// discards the transaction at once, with EXECABORT. The gateway answered
// the arity error and stayed in MULTI, so the next commands were queued
// (here the GET) and EXEC ran the transaction anyway.
func TestRefusedTxCommandAbortsMulti(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	out := rawExchange(t, in, "MULTI\r\nSET {r}k 1\r\nDISCARD x\r\nEXEC\r\nGET {r}k\r\n")
	assert.Equal(t, "+OK\r\n+QUEUED\r\n-ERR wrong number of arguments for 'discard' command\r\n"+
		"-EXECABORT Transaction discarded because of previous errors.\r\n$-1\r\n", out)
	out = rawExchange(t, in, "MULTI\r\nSET {r}k 1\r\nEXEC x\r\nGET {r}k\r\nEXEC\r\n")
	assert.Equal(t, "+OK\r\n+QUEUED\r\n-EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command\r\n"+
		"$-1\r\n-ERR EXEC without MULTI\r\n", out)
}

// An empty argument queued inside MULTI stays an empty string: ECHO ""
// and PING "" answer an empty bulk string in EXEC, as outside MULTI, and
// the empty key is a key like any other. The queue's copy of the
// arguments made every empty one nil, which a reply writes as null.
func TestTxEmptyArgs(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Backend: BackendConfig{Kind: "memkv", Shards: 1}})
	out := rawExchange(t, in, "MULTI\r\n*2\r\n$4\r\nECHO\r\n$0\r\n\r\n*2\r\n$4\r\nPING\r\n$0\r\n\r\n"+
		"*3\r\n$3\r\nSET\r\n$0\r\n\r\n$1\r\nv\r\n*2\r\n$3\r\nGET\r\n$0\r\n\r\nEXEC\r\n")
	assert.Equal(t, "+OK\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n*4\r\n$0\r\n\r\n$0\r\n\r\n+OK\r\n$1\r\nv\r\n", out)
}

// SET's options as Redis parses them: a repeated EX (or PX) is allowed, the
// last one counting, so an invalid first one does not matter; an expiry
// past the largest one Redis holds (now plus n ms overflows an int64) is
// refused, and the key is not written. The gateway refused the repeat as
// a syntax error, checked each n as it went, and accepted any large n,
// capping the TTL. The same inside MULTI.
func TestSetExpiryOptionsAsRedis(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	cmds := "SET {r}e1 v EX 0 EX 100\r\nSET {r}e2 v PX 100000 PX abc\r\nSET {r}e3 v EX 100 EX 200\r\n" +
		"SET {r}e4 v PX 9223372036854775807\r\nSET {r}e5 v EX 9223372036854775\r\nSET {r}e6 v EX 9223372036854775807\r\n" +
		"MGET {r}e1 {r}e3 {r}e4 {r}e5 {r}e6\r\n"
	want := "+OK\r\n-ERR value is not an integer or out of range\r\n+OK\r\n" +
		"-ERR invalid expire time in 'set' command\r\n-ERR invalid expire time in 'set' command\r\n-ERR invalid expire time in 'set' command\r\n" +
		"*5\r\n$1\r\nv\r\n$1\r\nv\r\n$-1\r\n$-1\r\n$-1\r\n"
	assert.Equal(t, want, rawExchange(t, in, cmds))
	out := rawExchange(t, in, "MULTI\r\nSET {r}t1 v EX abc EX 100\r\nSET {r}t2 v PX 9223372036854775000\r\nEXEC\r\nMGET {r}t1 {r}t2\r\n")
	assert.Equal(t, "+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n+OK\r\n-ERR invalid expire time in 'set' command\r\n*2\r\n$1\r\nv\r\n$-1\r\n", out)
}

// Keyless commands refuse the arguments Redis refuses: PING with two
// messages (arity), HELLO with a protocol version that is not an integer
// in Redis's canonical form ("+3" is not; ERR, not NOPROTO), and a client
// name with a space, a newline or a byte outside '!'..'~' (CLIENT INFO's
// fields are separated by spaces). The gateway echoed the first message,
// switched to RESP3 on "+3" and took any name.
func TestKeylessCommandsCheckArgs(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	out := rawExchange(t, in, "PING a b\r\nHELLO +3\r\nHELLO abc\r\nHELLO 4\r\nCLIENT SETNAME \"a b\"\r\n"+
		"HELLO 2 SETNAME \"x\\ny\"\r\nCLIENT SETNAME ok\r\nCLIENT GETNAME\r\nGET {r}none\r\n")
	assert.Equal(t, "-ERR wrong number of arguments for 'ping' command\r\n"+
		"-ERR Protocol version is not an integer or out of range\r\n"+
		"-ERR Protocol version is not an integer or out of range\r\n"+
		"-NOPROTO unsupported protocol version\r\n"+
		"-ERR Client names cannot contain spaces, newlines or special characters.\r\n"+
		"-ERR Client names cannot contain spaces, newlines or special characters.\r\n"+
		"+OK\r\n$2\r\nok\r\n$-1\r\n", out)
}

// An empty quoted argument of an inline command is an empty string: ECHO ""
// answers an empty bulk string, as Redis does. redcon.Parse copies each
// argument with append([]byte(nil), ...), which makes an empty one nil, and
// the gateway writes a nil []byte reply as null.
func TestInlineEmptyArg(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	assert.Equal(t, "$0\r\n\r\n$0\r\n\r\n", rawExchange(t, in, "ECHO \"\"\r\nPING ''\r\n"))
}

// CONFIG GET needs a pattern: Redis refuses CONFIG GET alone for its arity,
// before it is queued inside MULTI (so EXEC answers EXECABORT). The gateway
// answered an empty map, and queued it.
func TestConfigGetArity(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	out := rawExchange(t, in, "CONFIG GET\r\nMULTI\r\nCONFIG GET\r\nEXEC\r\n")
	assert.Equal(t, "-ERR wrong number of arguments for 'config|get' command\r\n+OK\r\n"+
		"-ERR wrong number of arguments for 'config|get' command\r\n-EXECABORT Transaction discarded because of previous errors.\r\n", out)
}
