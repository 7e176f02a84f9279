package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// malformedCmds are data commands that can never succeed, each with the
// error Redis answers it (and the gateway when idle), whatever the load.
var malformedCmds = []struct {
	args []any
	want string
}{
	{[]any{"SET", "k", "v", "EX", "notanumber"}, "ERR value is not an integer or out of range"},
	{[]any{"SET", "k", "v", "NX", "XX"}, "ERR syntax error"},
	{[]any{"SET", "k", "v", "EX", "0"}, "ERR invalid expire time in 'set' command"},
	{[]any{"SET", "k", "v", "GET"}, "ERR SET option 'GET' is not supported by the gateway"},
	{[]any{"INCRBY", "k", "x"}, "ERR value is not an integer or out of range"},
	{[]any{"DECRBY", "k", "-9223372036854775808"}, "ERR decrement would overflow"},
	{[]any{"MSET", "a", "1", "b"}, "ERR wrong number of arguments for 'mset' command"},
	{[]any{"KVSCAN", "a", "b", "LIMIT", "x"}, "ERR LIMIT must be a positive integer"},
	{[]any{"KVSCAN", "a", "b", "c"}, "ERR syntax error: KVSCAN begin end [LIMIT n]"},
	{[]any{"GET", "a", "b"}, "ERR wrong number of arguments for 'get' command"},
	{[]any{"MGET"}, "ERR wrong number of arguments for 'mget' command"},
	{[]any{"DEL"}, "ERR wrong number of arguments for 'del' command"},
	{[]any{"EXISTS"}, "ERR wrong number of arguments for 'exists' command"},
	{[]any{"WATCH"}, "ERR wrong number of arguments for 'watch' command"},
}

// checkMalformed sends malformedCmds one at a time and then pipelined, with
// a valid GET among them, and requires each its own error; the GET answers
// refused (a refusal starting with refusedPrefix), so admission refused
// while the malformed commands ran.
func checkMalformed(t *testing.T, c *redis.Client, refusedPrefix string) {
	t.Helper()
	ctx := context.Background()
	for _, tt := range malformedCmds {
		assert.EqualError(t, c.Do(ctx, tt.args...).Err(), tt.want, "%v alone", tt.args)
	}
	var get *redis.StringCmd
	cmds, _ := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		get = p.Get(ctx, "valid")
		for _, tt := range malformedCmds {
			p.Do(ctx, tt.args...)
		}
		return nil
	})
	require.Len(t, cmds, len(malformedCmds)+1)
	require.ErrorContains(t, get.Err(), refusedPrefix, "the valid GET is refused")
	for i, tt := range malformedCmds {
		assert.EqualError(t, cmds[i+1].Err(), tt.want, "%v pipelined", tt.args)
	}
}

// A malformed data command answers its syntax, arity or integer error when
// the tenant is over its quota, as Redis and the idle gateway answer it: it
// was admitted before its arguments were read, and answered THROTTLED, which
// a client backs off from and retries, where the command can never succeed.
func TestMalformedCommandErrorsWhenThrottled(t *testing.T) {
	cfg := Config{HTTPAddr: "-", Tenants: []TenantConfig{
		{Name: "idle", Password: "pw"},
		{Name: "slow", Password: "pw", QuotaRate: 0.001, QuotaBurst: 1},
	}}
	in := startGateway(t, cfg)
	ctx := context.Background()
	idle := client(t, in, &redis.Options{Username: "idle", Password: "pw"})
	for _, tt := range malformedCmds { // the errors, idle
		require.EqualError(t, idle.Do(ctx, tt.args...).Err(), tt.want, "%v idle", tt.args)
	}
	c := client(t, in, &redis.Options{Username: "slow", Password: "pw"})
	require.NoError(t, c.Set(ctx, "first", "v", 0).Err()) // spends the one backend call
	require.ErrorContains(t, c.Get(ctx, "first").Err(), "THROTTLED")
	checkMalformed(t, c, "THROTTLED")
	throttled := in.gw.tenants["slow"].throttled.Load()
	require.Equal(t, uint64(2), throttled, "only the valid GETs are throttled")
}

// So under load: with every unit of the admission limit held, a malformed
// command answered -OVERLOADED after its wait in shed's queue.
func TestMalformedCommandErrorsWhenOverloaded(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", MinLimit: 8, MaxLimit: 8, QueueDeadline: Duration(20 * time.Millisecond)})
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Ping(ctx).Err())
	release, err := g.shedder.Acquire(ctx, "other", 0, 8) // another tenant's work holds it all
	require.NoError(t, err)
	defer release()
	shed0 := g.n.shed.Load()
	checkMalformed(t, c, "OVERLOADED")
	require.Equal(t, uint64(1), g.n.shed.Load()-shed0, "only the valid GET is shed")
}
