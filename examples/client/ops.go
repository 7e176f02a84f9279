package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Value is one key's result in Client.MGet.
type Value struct {
	Value string
	Found bool
}

// start loads the routes and the config and routes key on them. A call it
// fails counts in Stats.Failures: nothing is sent, so do never sees it.
func (c *Client) start(key string) (*compiled, *Config, Target, error) {
	r, cfg, t, err := c.startRoute(key)
	if err != nil {
		c.failures.Add(1)
	}
	return r, cfg, t, err
}

func (c *Client) startRoute(key string) (*compiled, *Config, Target, error) {
	r, cfg, err := c.inForce()
	if err != nil {
		return nil, nil, Target{}, err
	}
	t, err := c.route(r, cfg, key, true)
	return r, cfg, t, err
}

// inForce returns the routes and the config in force, read once so that
// every key of one call is routed on the same publication.
func (c *Client) inForce() (*compiled, *Config, error) {
	if c.closed.Load() {
		return nil, nil, ErrClosed
	}
	r := c.routes.Load()
	if r == nil {
		return nil, nil, ErrNoRoutes
	}
	return r, c.cfg.Load(), nil
}

// Get returns the value of key, or ErrNotFound. Other errors come from the
// host (a reply error, returned as is), from routing (ErrNoRoutes,
// ErrNoHost) or from Client.Close (ErrClosed); a host failure is retried once
// on the next host within ctx.
func (c *Client) Get(ctx context.Context, key string) (string, error) {
	r, cfg, t, err := c.start(key)
	if err != nil {
		return "", err
	}
	var v string
	err = c.do(ctx, r, cfg, t, []string{key}, func(ctx context.Context, rc *redis.Client) error {
		var err error
		v, err = rc.Get(ctx, key).Result()
		return err
	})
	if errors.Is(err, redis.Nil) {
		return "", ErrNotFound
	}
	return v, err
}

// Set stores value under key, expiring after ttl (0: no expiry; negative:
// ErrBadTTL, nothing sent). Set is
// idempotent, so a retry on the next host after a host failure is safe even if
// the first host applied it.
//
// NOTE: a Set that timed out (at ctx's deadline, or at the 5 s read timeout
// if that comes first) may still be applied by its host late, after a later
// Set of key; the package doc has the details.
func (c *Client) Set(ctx context.Context, key, value string, ttl time.Duration) error {
	if ttl < 0 {
		return ErrBadTTL
	}
	r, cfg, t, err := c.start(key)
	if err != nil {
		return err
	}
	return c.do(ctx, r, cfg, t, []string{key}, func(ctx context.Context, rc *redis.Client) error {
		return rc.Set(ctx, key, value, ttl).Err()
	})
}

// Del deletes key and reports whether it existed. After a retry the answer is
// the second host's (the first may have deleted it before failing).
func (c *Client) Del(ctx context.Context, key string) (bool, error) {
	r, cfg, t, err := c.start(key)
	if err != nil {
		return false, err
	}
	var n int64
	err = c.do(ctx, r, cfg, t, []string{key}, func(ctx context.Context, rc *redis.Client) error {
		var err error
		n, err = rc.Del(ctx, key).Result()
		return err
	})
	return n > 0, err
}

// MGet returns the values of keys, in order. Keys are grouped by path, host
// and retry host: one MGET per group, groups sent one after the other, each
// with its own retry. A group whose host or retry host was ejected after the
// keys were routed (by an earlier group's failure, or another request's) is
// routed again before it is sent, as a later request would be, so neither
// its attempt nor its retry pays a failed attempt on that host. The first
// group error is returned with the values read so far.
// A reply that is not one value or null per key is an error, never a miss: an
// error element is returned as the reply error it is, any other wrong shape
// wraps ErrBadReply.
func (c *Client) MGet(ctx context.Context, keys ...string) ([]Value, error) {
	out := make([]Value, len(keys))
	// One publication for every key: routes or a config published while
	// the keys are grouped would otherwise split one call over both.
	r, cfg, err := c.inForce()
	if err != nil {
		c.failures.Add(1)
		return out, err
	}
	p := mgetPlan{open: map[mgetDest]*mgetGroup{}}
	for i, k := range keys {
		t, err := c.route(r, cfg, k, true)
		if err != nil {
			c.failures.Add(1)
			return out, err
		}
		p.add(t, i, false)
	}
	for n := 0; n < len(p.groups); n++ { // rerouted keys are appended as new groups
		g := p.groups[n]
		delete(p.open, g.t.dest())
		if c.reroute(r, cfg, keys, g, &p) {
			continue
		}
		if err := c.sendGroup(ctx, r, cfg, keys, g, out); err != nil {
			return out, err
		}
	}
	return out, nil
}

// mgetGroup is the keys of one MGet sent together, by index, and their
// target. A group made by rerouting keys is not rerouted again, so that an
// MGet ends however often hosts are ejected meanwhile.
type mgetGroup struct {
	t        Target
	idx      []int
	rerouted bool
}

// mgetDest is what keys sent together share: the same host, retried on the
// same one. Why the rollout chose the path (Target.Reason) does not change
// where they go.
type mgetDest struct {
	path       Path
	host, next string
}

func (t Target) dest() mgetDest { return mgetDest{path: t.Path, host: t.Host, next: t.Next} }

// mgetPlan is an MGet's groups in sending order; open holds those not sent yet.
type mgetPlan struct {
	groups []*mgetGroup
	open   map[mgetDest]*mgetGroup
}

func (p *mgetPlan) add(t Target, i int, rerouted bool) {
	d := t.dest()
	g := p.open[d]
	if g == nil {
		g = &mgetGroup{t: t, rerouted: rerouted}
		p.open[d] = g
		p.groups = append(p.groups, g)
	}
	g.idx = append(g.idx, i)
}

// reroute routes g's keys again on r if g's gateway host or its retry host
// has been ejected since they were routed, adding them to p's groups not sent
// yet, and reports whether it did. It does not when a key would still go to
// the ejected host (every host of its replica order is out; for an ejected
// retry host, a key whose route is unchanged): g is then sent as it is. A
// key whose ring owner was g's host and now goes elsewhere counts in
// Stats.Skipped now.
func (c *Client) reroute(r *compiled, cfg *Config, keys []string, g *mgetGroup, p *mgetPlan) bool {
	if g.rerouted || g.t.Path != PathGateway || c.ejectMax.Load() == 0 {
		return false
	}
	now := c.now()
	hostOut := c.ejected(g.t.Host, now)
	if !hostOut && (g.t.Next == "" || !c.ejected(g.t.Next, now)) {
		return false
	}
	ring := r.Gateways[g.t.Region]
	ts := make([]Target, len(g.idx))
	for j, i := range g.idx {
		t, err := c.route(r, cfg, keys[i], false)
		if err != nil || t.Host == g.t.Host && (hostOut || t.Next == g.t.Next) {
			return false
		}
		ts[j] = t
	}
	for j, i := range g.idx {
		if ts[j].Host != g.t.Host {
			if owner, err := ring.LookupHash(gatewayHash(keys[i])); err == nil && owner == g.t.Host {
				c.skipped.Add(1)
			}
		}
		p.add(ts[j], i, true)
	}
	return true
}

// sendGroup sends one MGet group and fills out from its reply.
func (c *Client) sendGroup(ctx context.Context, r *compiled, cfg *Config, keys []string, g *mgetGroup, out []Value) error {
	args := make([]any, 1+len(g.idx))
	args[0] = "mget"
	gkeys := make([]string, len(g.idx))
	for j, i := range g.idx {
		args[1+j] = keys[i]
		gkeys[j] = keys[i]
	}
	return c.do(ctx, r, cfg, g.t, gkeys, func(ctx context.Context, rc *redis.Client) error {
		// Do, not rc.MGet: MGet's reader takes any reply for an array
		// (a status fails to parse, an integer is read as a length, a
		// null as redis.Nil), where Do reads the reply as it is.
		reply, err := rc.Do(ctx, args...).Result()
		if errors.Is(err, redis.Nil) {
			return fmt.Errorf("%w: MGET answered null", ErrBadReply)
		}
		if err != nil {
			return err
		}
		vals, ok := reply.([]any)
		if !ok {
			return fmt.Errorf("%w: MGET answered a %T, not an array", ErrBadReply, reply)
		}
		return fillMGet(out, g.idx, vals)
	})
}

// fillMGet sets out[idx[j]] from the MGET reply vals[j]: a value or, for
// null, not found. A reply that is not one value or null per key leaves out
// as it was: go-redis hands an error element over as a value, which would
// otherwise read as a missing key, so it is returned as the reply error it
// is; any other shape is ErrBadReply.
func fillMGet(out []Value, idx []int, vals []any) error {
	if len(vals) != len(idx) {
		return fmt.Errorf("%w: MGET of %d keys answered %d values", ErrBadReply, len(idx), len(vals))
	}
	for j, v := range vals {
		switch v := v.(type) {
		case nil, string:
		case error:
			return v
		default:
			return fmt.Errorf("%w: MGET answered a %T for key %d", ErrBadReply, v, j)
		}
	}
	for j, v := range vals {
		if s, ok := v.(string); ok {
			out[idx[j]] = Value{Value: s, Found: true}
		}
	}
	return nil
}
