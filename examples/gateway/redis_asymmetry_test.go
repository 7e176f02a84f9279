package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// asymCase is one run of TestRedisConnectionAsymmetry.
type asymCase struct {
	client string // the data path's client
	pool   int
	tier   bool // the caching tier on
}

// TestRedisConnectionAsymmetry: 200 client connections spread over two
// gateways on the same two shards, mixing SET, GET and WATCH/MULTI/EXEC on
// {tag} keys, reach each shard over a number of connections set by the
// gateways and the pool alone, sampled with CLIENT LIST during the load.
// Per gateway and shard: with go-redis, one shared pool of Pool; with
// rueidis, the largest power of two not above Pool for the data path plus
// a go-redis pool of at most Pool for transactions (and the tier's
// markers); with the caching tier, exactly one more, its subscriber
// (tierkit-gateway-feed). With two gateways each count doubles: the fan-in
// is gateways x pool, whatever the client count.
func TestRedisConnectionAsymmetry(t *testing.T) {
	for _, c := range []asymCase{
		{"rueidis", 3, false}, {"rueidis", 3, true}, {"go-redis", 3, false}, {"go-redis", 3, true},
		{"rueidis", 6, false},
	} {
		t.Run(fmt.Sprintf("%s/pool%d/tier%v", c.client, c.pool, c.tier), func(t *testing.T) {
			runAsymmetry(t, c)
		})
	}
}

// loadedDialTimeout is the dial timeout of tests that check which
// connections the gateway opens, not how soon a dead shard fails: on a
// loaded host (a whole-package -race run, load average 10 on 2 cores) a
// loopback dial and rueidis's setup took over the default 500 ms, and the
// dial failed with the shard up (TestBackendDialTimeoutSetupCounts).
const loadedDialTimeout = Duration(5 * time.Second)

// asymGateways and asymClients size every case: the client connections
// are well above gateways x pool.
const asymGateways, asymClients = 2, 200

func runAsymmetry(t *testing.T, c asymCase) {
	var addrs []string
	var shards []*redisServer
	for range 2 {
		s := startRedis(t)
		shards, addrs = append(shards, s), append(addrs, s.addr)
	}
	cfg := Config{Backend: BackendConfig{Kind: "redis", Redis: addrs, Pool: c.pool, Client: c.client,
		DialTimeout: loadedDialTimeout}}
	if c.tier {
		cfg.CacheCapacity, cfg.CacheStaleness = 1000, Duration(time.Minute)
	}
	var gws []*instance
	for range asymGateways {
		gws = append(gws, startGateway(t, cfg))
	}
	probes := make([]*connProbe, len(shards))
	for i, s := range shards {
		probes[i] = newConnProbe(t, s)
	}
	if c.tier { // each gateway's subscriber connects in the background
		for _, p := range probes {
			eventually(t, "the tier's subscribers did not connect", func() bool {
				return p.sample(t).feed == asymGateways
			})
		}
	}
	stop := make(chan struct{})
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	halt := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer halt() // a failed check ends the load too
	for w := range asymClients {
		wg.Go(func() { asymLoad(gws[w%asymGateways], w, stop, &failed) })
	}
	full := sampleDuringLoad(t, c, gws, probes, &failed)
	halt()
	if err := failed.Load(); err != nil {
		t.Fatalf("a client's command failed: %v", *err)
	}
	for i, f := range full {
		assert.True(t, f, "shard %d: the pools never filled to the bound during the load", i)
	}
}

// asymLoad runs one client connection's SET, GET and WATCH/MULTI/EXEC on
// its own {tag} keys until stop; the first error lands in failed.
func asymLoad(in *instance, w int, stop <-chan struct{}, failed *atomic.Pointer[error]) {
	c := redis.NewClient(&redis.Options{Addr: in.Addr(), MaxRetries: -1, PoolSize: 1})
	defer c.Close()
	ctx := context.Background()
	k, k2 := fmt.Sprintf("{c%d}:a", w), fmt.Sprintf("{c%d}:b", w)
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		err := c.Set(ctx, k, i, 0).Err()
		if err == nil {
			err = c.Get(ctx, k).Err()
		}
		if err == nil {
			err = c.Watch(ctx, func(tx *redis.Tx) error {
				v, err := tx.Get(ctx, k).Result()
				if err != nil {
					return err
				}
				_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
					p.Set(ctx, k2, v, 0)
					p.Set(ctx, k, i+1, 0)
					return nil
				})
				return err
			}, k)
		}
		if err != nil {
			failed.CompareAndSwap(nil, &err)
			return
		}
	}
}

// sampleDuringLoad samples every shard's connections until each was seen
// with its pools filled to their bound, for at most 5 s, checking every
// sample against the bounds. It reports which shards were seen filled.
func sampleDuringLoad(t *testing.T, c asymCase, gws []*instance, probes []*connProbe, failed *atomic.Pointer[error]) []bool {
	t.Helper()
	mux := 1 // rueidis's data connections: the largest power of two <= pool
	for mux*2 <= c.pool {
		mux *= 2
	}
	feeds := 0
	if c.tier {
		feeds = asymGateways
	}
	full := make([]bool, len(probes))
	peak := make([]int, len(probes))
	defer func() {
		for i, n := range peak {
			t.Logf("shard %d: at most %d gateway connections and %d subscribers for %d client connections over %d gateways",
				i, n, feeds, asymClients, asymGateways)
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for n := 0; ; n++ {
		done := n >= 50 // samples after the pools filled too, all during the load
		for i, p := range probes {
			before := txConns(t, gws, i)
			s := p.sample(t)
			after := txConns(t, gws, i)
			peak[i] = max(peak[i], s.gateway)
			require.Equal(t, feeds, s.feed, "shard %d: the tier's subscribers (sample %d)", i, n)
			for g, tx := range after {
				require.LessOrEqual(t, tx, c.pool, "shard %d: gateway %d's go-redis pool (sample %d)", i, g, n)
			}
			if c.client == "go-redis" { // one shared pool
				require.LessOrEqual(t, s.gateway, asymGateways*c.pool, "shard %d (sample %d)", i, n)
				full[i] = full[i] || s.gateway == asymGateways*c.pool
			} else {
				require.LessOrEqual(t, s.gateway, asymGateways*(mux+c.pool), "shard %d (sample %d)", i, n)
				if filled(before, c.pool) && filled(after, c.pool) { // the transactions' pools: exactly pool each
					data := s.gateway - asymGateways*c.pool
					require.LessOrEqual(t, data, asymGateways*mux, "shard %d: rueidis connections (sample %d)", i, n)
					full[i] = full[i] || data == asymGateways*mux
				}
			}
			done = done && full[i]
		}
		if done || failed.Load() != nil || time.Now().After(deadline) {
			t.Logf("%d samples during the load", n+1)
			return full
		}
	}
}

// txConns returns each gateway's go-redis connections to shard i as the
// gateway counts them (with go-redis, the data path's too).
func txConns(t *testing.T, gws []*instance, i int) []int {
	t.Helper()
	var n []int
	for _, in := range gws {
		b, ok := asRedis(in.gw.backend)
		require.True(t, ok)
		n = append(n, int(b.shards[i].PoolStats().TotalConns))
	}
	return n
}

func filled(conns []int, pool int) bool {
	for _, n := range conns {
		if n != pool {
			return false
		}
	}
	return true
}

// connProbe lists a shard's clients other than itself.
type connProbe struct {
	c  *redis.Client
	id int64 // the probe's own connection, left out of its samples
}

// connSample counts a shard's clients other than the probe: the tier's
// subscribers (by name) and every other connection, which is a gateway's
// (named tierkit-gateway, or not yet named while it sets up).
type connSample struct{ feed, gateway int }

func newConnProbe(t *testing.T, s *redisServer) *connProbe {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1, PoolSize: 1, MaxActiveConns: 1})
	t.Cleanup(func() { _ = c.Close() })
	id, err := c.ClientID(context.Background()).Result()
	require.NoError(t, err)
	return &connProbe{c: c, id: id}
}

func (p *connProbe) sample(t *testing.T) connSample {
	t.Helper()
	list, err := p.c.ClientList(context.Background()).Result()
	require.NoError(t, err)
	var s connSample
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		f := map[string]string{}
		for _, kv := range strings.Fields(line) {
			k, v, _ := strings.Cut(kv, "=")
			f[k] = v
		}
		id, err := strconv.ParseInt(f["id"], 10, 64)
		require.NoError(t, err, "CLIENT LIST line %q", line)
		switch {
		case id == p.id:
		case f["name"] == clientName+"-feed":
			s.feed++
		default:
			require.Contains(t, []string{clientName, ""}, f["name"], "a connection not the gateway's")
			s.gateway++
		}
	}
	return s
}
