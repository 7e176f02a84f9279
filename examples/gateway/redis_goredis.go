package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/redis/go-redis/v9"
)

// goredisData is the go-redis data path: a pooled connection, a write and a
// read per batch.
type goredisData struct{ c *redis.Client }

func (g goredisData) replyErr(err error) bool { return isReplyError(err) }

func (g goredisData) mget(ctx context.Context, keys []string, out []opResult) error {
	vals, err := g.c.MGet(ctx, keys...).Result()
	if err != nil {
		return err
	}
	return mgetResults(vals, out[:len(keys)])
}

func (g goredisData) getsWithTTL(ctx context.Context, keys []string, out []opResult) error {
	return getsWithTTL(ctx, g.c, keys, out)
}

func (g goredisData) mset(ctx context.Context, ops []op, out []opResult) error {
	pairs := make([]any, 0, 2*len(ops))
	for _, o := range ops {
		pairs = append(pairs, o.key, o.value)
	}
	err := g.c.MSet(ctx, pairs...).Err()
	return msetOutcome(out[:len(ops)], err, err != nil && isReplyError(err))
}

func (g goredisData) pipeline(ctx context.Context, ops []op, out []opResult, ttl bool) error {
	c := g.c
	cmds := make([]redis.Cmder, len(ops))
	var ttls []*redis.IntCmd
	if ttl {
		ttls = make([]*redis.IntCmd, len(ops))
	}
	now := time.Now() // before the call: the cached expiry is never late
	_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := 0; i < len(ops); i++ {
			if j := jointEnd(ops, i); j > i+1 {
				cmds[i] = jointCmd(ctx, p, ops[i:j]) // the ops after it share it
				i = j - 1
				continue
			}
			switch o := ops[i]; o.kind {
			case opGet:
				cmds[i] = p.Get(ctx, o.key)
				if ttl {
					ttls[i] = pttl(ctx, p, o.key)
				}
			case opExists:
				cmds[i] = p.Exists(ctx, o.key)
			case opDel:
				cmds[i] = p.Del(ctx, o.key)
			case opIncr:
				cmds[i] = p.IncrBy(ctx, o.key, o.delta)
			case opSet:
				a := redis.SetArgs{TTL: o.ttl}
				if o.nx {
					a.Mode = "NX"
				} else if o.xx {
					a.Mode = "XX"
				}
				cmds[i] = p.SetArgs(ctx, o.key, o.value, a)
			}
		}
		return nil
	})
	if err != nil && !isReplyError(err) && !errors.Is(err, redis.Nil) {
		return err // the shard is unreachable: the whole batch fails
	}
	if setupFailed(err, cmds, ttls) {
		for i := range ops {
			out[i] = opResult{err: err}
		}
		return nil
	}
	for i := 0; i < len(ops); i++ {
		if j := jointEnd(ops, i); j > i+1 {
			jointResults(ops[i].kind, cmds[i], out[i:j])
			i = j - 1
			continue
		}
		out[i] = redisResult(cmds[i])
		if ttls != nil && ttls[i] != nil && out[i].found {
			if err := ttls[i].Err(); err != nil {
				out[i] = opResult{err: err}
				continue
			}
			out[i].expireAt = ttlExpiry(now, ttls[i].Val())
		}
	}
	return nil
}

// jointEnd returns the end of the run of ops from i: i+1, or past the joint
// ops after it (the other keys of one MSET or DEL on this shard). The Redis
// backends send such a run as one MSET or DEL, which the shard applies at
// once, as it applies the client's command; as a pipeline of one command per
// key, a concurrent MGET could find some keys written and others not (the
// shard runs a long pipeline a read of 16 KiB at a time, serving its other
// clients between).
func jointEnd(ops []op, i int) int {
	j := i + 1
	for j < len(ops) && ops[j].joint && ops[j].kind == ops[i].kind {
		j++
	}
	return j
}

// jointCmd queues the one command of a joint run of ops: DEL of its keys, or
// MSET of its pairs (the keys of an MSET are plain SETs).
func jointCmd(ctx context.Context, p redis.Pipeliner, run []op) redis.Cmder {
	if run[0].kind == opDel {
		keys := make([]string, len(run))
		for i, o := range run {
			keys[i] = o.key
		}
		return p.Del(ctx, keys...)
	}
	pairs := make([]any, 0, 2*len(run))
	for _, o := range run {
		pairs = append(pairs, o.key, o.value)
	}
	return p.MSet(ctx, pairs...)
}

// jointResults sets out from the reply of the command that carried a joint
// run of ops of kind: for a DEL, whose reply counts the keys it deleted, the
// first that many ops found their key (a DEL command's reply is their count).
func jointResults(kind opKind, cmd redis.Cmder, out []opResult) {
	var n int64
	if c, ok := cmd.(*redis.IntCmd); ok {
		n = c.Val()
	}
	jointOutcome(kind, n, cmd.Err(), out)
}

// jointOutcome sets out from the outcome of a joint run's command: its error
// reply, or every SET written, or the first n of its DELs found.
func jointOutcome(kind opKind, n int64, err error, out []opResult) {
	for i := range out {
		switch {
		case err != nil:
			out[i] = opResult{err: err}
		case kind == opDel:
			out[i] = opResult{found: int64(i) < n}
		default:
			out[i] = opResult{found: true}
		}
	}
}

// mgetCountError is an MGET reply with another number of values than the
// keys asked (a proxy's or a fake shard's bug): its values cannot be matched
// with the keys, and the batch fails.
type mgetCountError struct{ keys, vals int }

func (e *mgetCountError) Error() string {
	return fmt.Sprintf("ERR gateway: MGET answered %d values for %d keys", e.vals, e.keys)
}

// checkMGetCount returns a *mgetCountError unless an MGET of keys keys
// answered vals values.
func checkMGetCount(keys, vals int) error {
	if keys != vals {
		return &mgetCountError{keys: keys, vals: vals}
	}
	return nil
}

// mgetResults sets out[i] from MGET's reply vals[i]: the value, or not found.
// A reply of another length than out fails with a *mgetCountError.
func mgetResults(vals []any, out []opResult) error {
	if err := checkMGetCount(len(out), len(vals)); err != nil {
		return err
	}
	for i, v := range vals {
		if s, ok := v.(string); ok {
			out[i] = opResult{value: []byte(s), found: true}
		} else {
			out[i] = opResult{}
		}
	}
	return nil
}

// getsWithTTL reads keys on c as one MGET and their PTTLs, pipelined in
// one round trip: the caching tier stores each value with its expiry.
func getsWithTTL(ctx context.Context, c *redis.Client, keys []string, out []opResult) error {
	var mget *redis.SliceCmd
	ttls := make([]*redis.IntCmd, len(keys))
	now := time.Now()
	_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		mget = p.MGet(ctx, keys...)
		for i, k := range keys {
			ttls[i] = pttl(ctx, p, k)
		}
		return nil
	})
	if err != nil && !isReplyError(err) {
		return err // the shard is unreachable: the whole batch fails
	}
	if setupFailed(err, []redis.Cmder{mget}, ttls) {
		for i := range out {
			out[i] = opResult{err: err}
		}
		return nil
	}
	if err := mget.Err(); err != nil {
		for i := range out {
			out[i] = opResult{err: err}
		}
		return nil
	}
	if err := mgetResults(mget.Val(), out[:len(keys)]); err != nil {
		return err
	}
	for i := range keys {
		if !out[i].found {
			continue
		}
		if err := ttls[i].Err(); err != nil {
			out[i] = opResult{err: err}
			continue
		}
		out[i].expireAt = ttlExpiry(now, ttls[i].Val())
	}
	return nil
}

// pttl queues PTTL key on p, its reply read as milliseconds: go-redis's
// PTTL converts it to a time.Duration, which overflows past 292 years
// (PEXPIRE accepts more).
func pttl(ctx context.Context, p redis.Pipeliner, key string) *redis.IntCmd {
	cmd := redis.NewIntCmd(ctx, "pttl", key)
	_ = p.Process(ctx, cmd) // queued: the pipeline's Exec reports errors
	return cmd
}

// ttlExpiry turns a PTTL reply ms (milliseconds), read at now or later, into
// the expiry the caching tier stores (unix ns; 0 none). -1 is no expiry; -2
// means the key is gone since the MGET, so the value expires at once; else
// the time left, measured from before the call so the cached expiry is never
// late. An expiry past what unix nanoseconds hold (year 2262; EXPIREAT
// 9999999999 is 2286) is farExpiry: live. Computed as now+d, it overflowed
// to a time long past, and the key was never a hit.
func ttlExpiry(now time.Time, ms int64) int64 {
	ns := now.UnixNano()
	switch {
	case ms == -2 || ms == 0:
		return ns
	case ms < 0:
		return 0
	case ms > (math.MaxInt64-ns)/int64(time.Millisecond):
		return farExpiry
	}
	return ns + ms*int64(time.Millisecond)
}

// msetOutcome sets out from the outcome of the MSET that carried a batch of
// plain SETs: every SET written; or, on a reply error (replyErr), each SET
// failed with it; any other error (the shard is unreachable) fails the whole
// batch and is returned.
func msetOutcome(out []opResult, err error, replyErr bool) error {
	switch {
	case err == nil:
		for i := range out {
			out[i] = opResult{found: true}
		}
	case replyErr:
		for i := range out {
			out[i] = opResult{err: err}
		}
	default:
		return err
	}
	return nil
}
