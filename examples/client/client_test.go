package client_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/failover"
	"github.com/tierkit/tierkit/hashring"
	"github.com/tierkit/tierkit/internal/leak"
	"github.com/tierkit/tierkit/rollout"
)

func newClient(t testing.TB, cfg client.Config) *client.Client {
	t.Helper()
	if cfg.Service == "" {
		cfg.Service = "svc"
	}
	if cfg.Region == "" {
		cfg.Region = "a"
	}
	c, err := client.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func flags(t testing.TB, percent float64, kill bool) *rollout.Flags {
	t.Helper()
	f, err := rollout.New(rollout.Config{Rules: []rollout.Rule{{Service: "svc", Prefix: "user:", Percent: percent}}, Kill: kill})
	require.NoError(t, err)
	return f
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		give client.Config
		want error
	}{
		{give: client.Config{Service: "s", Region: "a"}},
		{give: client.Config{Region: "a"}, want: client.ErrInvalidConfig},
		{give: client.Config{Service: "s"}, want: client.ErrInvalidConfig},
		{give: client.Config{Service: "s", Region: "a", PoolSize: -1}, want: client.ErrInvalidConfig},
		{give: client.Config{Service: "s", Region: "a", EjectFor: -time.Second}, want: client.ErrInvalidConfig},
	}
	for _, tt := range tests {
		_, err := client.New(tt.give)
		assert.ErrorIs(t, err, tt.want, "%+v", tt.give)
	}
	c := newClient(t, client.Config{})
	got := c.Config()
	assert.Equal(t, client.DefaultPoolSize, got.PoolSize)
	assert.Equal(t, client.DefaultEjectFor, got.EjectFor)
	require.ErrorIs(t, c.SetConfig(client.Config{}), client.ErrInvalidConfig)
	assert.Equal(t, "svc", c.Config().Service, "a rejected config leaves the previous one")
}

func TestRoutingErrors(t *testing.T) {
	c := newClient(t, client.Config{})
	_, err := c.Get(context.Background(), "user:1")
	require.ErrorIs(t, err, client.ErrNoRoutes)
	require.ErrorIs(t, c.SetRoutes(client.Routes{Gateways: map[string]*hashring.Ring{"a": {}}}), client.ErrInvalidRoutes)
	require.NoError(t, c.SetRoutes(client.Routes{Rollout: flags(t, 100, false)}))
	_, err = c.Route("user:1")
	require.ErrorIs(t, err, client.ErrNoHost, "gateway path without a ring for the region")
	_, err = c.Route("other:1")
	require.ErrorIs(t, err, client.ErrNoHost, "direct path without shards")
	require.NoError(t, c.Close())
	require.NoError(t, c.SetRoutes(client.Routes{Direct: []string{"127.0.0.1:1"}}))
	require.ErrorIs(t, c.Set(context.Background(), "k", "v", 0), client.ErrClosed)
}

// Writes through the gateways are read back directly from the shards and the
// other way round: both paths place keys on the same shard.
func TestPathsAgree(t *testing.T) {
	leak.Check(t)
	tr := startTier(t, 3, 2)
	c := newClient(t, client.Config{})
	f := flags(t, 100, false)
	require.NoError(t, c.SetRoutes(client.Routes{
		Gateways: map[string]*hashring.Ring{"a": ring(t, tr.gws, nil)}, Rollout: f, Direct: tr.shards}))
	ctx := context.Background()
	const n = 300
	for i := range n {
		require.NoError(t, c.Set(ctx, fmt.Sprint("user:", i), fmt.Sprint("v", i), 0))
	}
	require.NoError(t, f.SetConfig(rollout.Config{Rules: f.Config().Rules, Kill: true}))
	keys := make([]string, n)
	for i := range n {
		keys[i] = fmt.Sprint("user:", i)
		v, err := c.Get(ctx, keys[i])
		require.NoError(t, err)
		require.Equal(t, fmt.Sprint("v", i), v)
	}
	vals, err := c.MGet(ctx, append(keys[:10:10], "user:missing")...)
	require.NoError(t, err)
	for i, v := range vals[:10] {
		assert.Equal(t, client.Value{Value: fmt.Sprint("v", i), Found: true}, v)
	}
	assert.False(t, vals[10].Found)
	_, err = c.Get(ctx, "user:missing")
	require.ErrorIs(t, err, client.ErrNotFound)
	existed, err := c.Del(ctx, "user:0")
	require.NoError(t, err)
	assert.True(t, existed)

	s := c.Stats()
	assert.Equal(t, uint64(n), s.Gateway)
	assert.GreaterOrEqual(t, s.Direct, uint64(n+1+2+1), "gets, the mget groups and the del went direct")
	assert.Zero(t, s.Failures)
	assert.Zero(t, s.Retries)
	for _, g := range tr.gws {
		assert.Greater(t, s.Hosts[g.addr], uint64(n/6), "every gateway took its share")
	}
	for _, sh := range tr.shards {
		assert.Greater(t, s.Hosts[sh], uint64(n/4), "every shard took its share")
	}
}

// A gateway killed (or drained) mid-load: its requests move to the next host
// of the ring, and no request fails, because each has one retry and the dead
// host is ejected after its first failure.
func TestGatewayLostMidLoad(t *testing.T) {
	for _, tt := range []struct {
		name string
		sig  syscall.Signal
	}{{"killed", syscall.SIGKILL}, {"drained", syscall.SIGTERM}} {
		t.Run(tt.name, func(t *testing.T) {
			leak.Check(t)
			tr := startTier(t, 3, 2)
			c := newClient(t, client.Config{EjectFor: time.Hour, PoolSize: 2})
			require.NoError(t, c.SetRoutes(client.Routes{
				Gateways: map[string]*hashring.Ring{"a": ring(t, tr.gws, nil)}, Rollout: flags(t, 100, false), Direct: tr.shards}))
			const workers, perWorker, killAt = 4, 400, 600
			var done atomic.Int64
			var victimAtKill uint64
			var killOnce sync.Once
			victim := tr.gws[0]
			var wg sync.WaitGroup
			errs := make(chan error, workers)
			for w := range workers {
				wg.Go(func() {
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					for i := range perWorker {
						if done.Add(1) == killAt {
							killOnce.Do(func() { victim.stop(tt.sig); victimAtKill = c.Stats().Hosts[victim.addr] }) // counted once it is gone
						}
						key := fmt.Sprintf("user:%d:%d", w, i)
						if err := c.Set(ctx, key, key, 0); err != nil {
							errs <- err
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				require.NoError(t, err)
			}
			s := c.Stats()
			assert.Zero(t, s.Failures, "no request fails beyond its retry")
			assert.Equal(t, uint64(workers*perWorker), s.Gateway)
			assert.LessOrEqual(t, s.Retries, uint64(workers), "at most one retry per worker before the host is ejected")
			assert.LessOrEqual(t, s.Hosts[victim.addr]-victimAtKill, uint64(workers), "after it is gone, the lost host gets at most one attempt per worker")
			assert.Greater(t, s.Skipped, uint64(0), "its keys go to the next host up front")
			for _, g := range tr.gws[1:] {
				assert.LessOrEqual(t, s.Conns[g.addr], 2, "4 workers share a pool of 2 connections per host")
			}
			t.Logf("%s: retries %d, skipped %d, hosts %v, conns %v", tt.name, s.Retries, s.Skipped, s.Hosts, s.Conns)
			for w := range workers { // every acknowledged write is readable through the remaining hosts
				key := fmt.Sprintf("user:%d:%d", w, perWorker-1)
				v, err := c.Get(context.Background(), key)
				require.NoError(t, err)
				require.Equal(t, key, v)
			}
		})
	}
}

// A host the control plane marks draining gets no new requests: they go to
// the next host up front, without a failed attempt.
func TestDrainingHostSkipped(t *testing.T) {
	tr := startTier(t, 2, 1)
	c := newClient(t, client.Config{})
	r := client.Routes{Gateways: map[string]*hashring.Ring{"a": ring(t, tr.gws, nil)}, Rollout: flags(t, 100, false), Draining: []string{tr.gws[0].addr}}
	require.NoError(t, c.SetRoutes(r))
	for i := range 200 {
		require.NoError(t, c.Set(context.Background(), fmt.Sprint("user:", i), "v", 0))
	}
	s := c.Stats()
	assert.Zero(t, s.Hosts[tr.gws[0].addr])
	assert.Equal(t, uint64(200), s.Hosts[tr.gws[1].addr])
	assert.Greater(t, s.Skipped, uint64(60))
	assert.Zero(t, s.Retries)
}

// Rollout 0 -> 50 -> 100%: the share on the gateway follows, a key routed at 50%
// stays routed at 100%, and the kill switch sends everything direct at once.
func TestRolloutRampAndKillSwitch(t *testing.T) {
	leak.Check(t)
	tr := startTier(t, 2, 2)
	c := newClient(t, client.Config{})
	f := flags(t, 0, false)
	require.NoError(t, c.SetRoutes(client.Routes{Gateways: map[string]*hashring.Ring{"a": ring(t, tr.gws, nil)}, Rollout: f, Direct: tr.shards}))
	const n = 1000
	ctx := context.Background()
	onGateway := map[string]bool{}
	step := func(percent float64, kill bool) float64 {
		require.NoError(t, f.SetConfig(rollout.Config{Rules: []rollout.Rule{{Service: "svc", Prefix: "user:", Percent: percent}}, Kill: kill}))
		before := c.Stats()
		for i := range n {
			key := fmt.Sprint("user:", i)
			tg, err := c.Route(key)
			require.NoError(t, err)
			if onGateway[key] && !kill {
				require.Equal(t, client.PathGateway, tg.Path, "%s left the gateway as the ramp rose", key)
			}
			onGateway[key] = tg.Path == client.PathGateway
			require.NoError(t, c.Set(ctx, key, "v", 0))
		}
		after := c.Stats()
		require.Equal(t, uint64(n), after.Gateway-before.Gateway+after.Direct-before.Direct)
		return float64(after.Gateway-before.Gateway) / n
	}
	assert.Zero(t, step(0, false))
	assert.InDelta(t, 0.5, step(50, false), 0.05)
	assert.InDelta(t, 0.5, step(50, false), 0.05, "a second pass at 50% routes the same keys")
	assert.Equal(t, 1.0, step(100, false))
	assert.Zero(t, step(100, true), "kill switch: everything direct")
	assert.Zero(t, c.Stats().Failures)
}

// The control plane reweights the ring: per-host traffic follows the weights.
func TestWeightsFollowPublishedRing(t *testing.T) {
	leak.Check(t)
	gws := []*gatewayProc{startGateway(t), startGateway(t), startGateway(t)} // memkv backends
	c := newClient(t, client.Config{})
	f := flags(t, 100, false)
	ctx := context.Background()
	measure := func(weights []float64) []float64 {
		r := ring(t, gws, weights)
		require.NoError(t, c.SetRoutes(client.Routes{Gateways: map[string]*hashring.Ring{"a": r}, Rollout: f}))
		before := c.Stats()
		const n, workers = 2400, 4
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := w; i < n; i += workers {
					assert.NoError(t, c.Set(ctx, fmt.Sprint("user:", i), "v", 0))
				}
			})
		}
		wg.Wait()
		after := c.Stats()
		owned := map[string]uint64{} // what the published ring says each host owns
		for i := range n {
			owner, err := r.Lookup(fmt.Sprint("user:", i))
			require.NoError(t, err)
			owned[owner]++
		}
		shares := make([]float64, len(gws))
		for i, g := range gws {
			got := after.Hosts[g.addr] - before.Hosts[g.addr]
			assert.Equal(t, owned[g.addr], got, "host %d received exactly the keys the ring gives it", i)
			shares[i] = float64(got) / n
		}
		return shares
	}
	for _, weights := range [][]float64{{1, 1, 1}, {1, 2, 5}, {6, 1, 1}} {
		got := measure(weights)
		var sum float64
		for _, w := range weights {
			sum += w
		}
		for i, w := range weights {
			// 2,400 keys: one standard deviation of a share is at most 1 point.
			assert.InDelta(t, w/sum, got[i], 0.05, "weights %v: host %d", weights, i)
		}
		t.Logf("weights %v -> shares %.3f", weights, got)
	}
	assert.Zero(t, c.Stats().Failures)
}

// The failover table moves its share of a region's keys (or, with Unit set,
// whole clients) to the backup region's ring.
func TestFailoverPick(t *testing.T) {
	ra, err := hashring.New(hashring.Config{}, []hashring.Node{{ID: "a1:1", Weight: 1}, {ID: "a2:1", Weight: 1}})
	require.NoError(t, err)
	rb, err := hashring.New(hashring.Config{}, []hashring.Node{{ID: "b1:1", Weight: 1}})
	require.NoError(t, err)
	table := &failover.Table{Routes: []failover.Route{{From: "a", To: "b", Share: 0.3, Mechanism: failover.MechRing}}}
	r := client.Routes{Gateways: map[string]*hashring.Ring{"a": ra, "b": rb}, Failover: table, Rollout: flags(t, 100, false)}
	c := newClient(t, client.Config{})
	require.NoError(t, c.SetRoutes(r))
	const n = 10000
	inB := 0
	for i := range n {
		tg, err := c.Route(fmt.Sprint("user:", i))
		require.NoError(t, err)
		if tg.Region == "b" {
			inB++
			require.Equal(t, "b1:1", tg.Host)
			require.Empty(t, tg.Next, "region b has one host")
		}
	}
	assert.InDelta(t, 0.3, float64(inB)/n, 0.02)

	regions := map[string]int{}
	for u := range 200 { // with a client id, a client is wholly in one region
		cu := newClient(t, client.Config{Unit: fmt.Sprint("client-", u)})
		require.NoError(t, cu.SetRoutes(r))
		seen := map[string]bool{}
		for i := range 20 {
			tg, err := cu.Route(fmt.Sprint("user:", i))
			require.NoError(t, err)
			seen[tg.Region] = true
		}
		require.Len(t, seen, 1)
		for reg := range seen {
			regions[reg]++
		}
	}
	assert.InDelta(t, 0.3, float64(regions["b"])/200, 0.1)
}

// Routes swapped continuously while requests run: every request completes on
// the routes it loaded, none fails, and the race detector sees no race.
func TestSwapRoutesUnderLoad(t *testing.T) {
	leak.Check(t)
	tr := startTier(t, 3, 1)
	c := newClient(t, client.Config{})
	f := flags(t, 50, false)
	rings := []*hashring.Ring{ring(t, tr.gws, []float64{1, 1, 1}), ring(t, tr.gws, []float64{5, 1, 1}), ring(t, tr.gws[1:], nil)}
	require.NoError(t, c.SetRoutes(client.Routes{Gateways: map[string]*hashring.Ring{"a": rings[0]}, Rollout: f, Direct: tr.shards}))
	var wg sync.WaitGroup
	var running atomic.Int64
	running.Store(4)
	for w := range 4 {
		wg.Go(func() {
			defer running.Add(-1)
			for i := range 200 {
				key := fmt.Sprintf("user:%d:%d", w, i)
				if err := c.Set(context.Background(), key, key, 0); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	published := uint64(1)
	for i := 0; running.Load() > 0 && i < 100000; i++ { // publish for as long as the load runs
		require.NoError(t, c.SetRoutes(client.Routes{Gateways: map[string]*hashring.Ring{"a": rings[i%len(rings)]}, Rollout: f, Direct: tr.shards}))
		published++
	}
	wg.Wait()
	s := c.Stats()
	assert.Equal(t, published, s.Swaps)
	t.Logf("%d publications during 800 writes", published)
	assert.Zero(t, s.Failures)
	assert.Greater(t, s.Gateway, uint64(0))
	assert.Greater(t, s.Direct, uint64(0))
}

// A retry happens only within the caller's deadline: a request whose context
// is already done is not sent again.
func TestNoRetryPastDeadline(t *testing.T) {
	c := newClient(t, client.Config{})
	dead := "127.0.0.1:1" // nothing listens on port 1
	r, err := hashring.New(hashring.Config{}, []hashring.Node{{ID: dead, Weight: 1}, {ID: "127.0.0.1:2", Weight: 1}})
	require.NoError(t, err)
	require.NoError(t, c.SetRoutes(client.Routes{Gateways: map[string]*hashring.Ring{"a": r}, Rollout: flags(t, 100, false)}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.Error(t, c.Set(ctx, "user:1", "v", 0))
	s := c.Stats()
	assert.Zero(t, s.Retries)
	assert.Equal(t, uint64(1), s.Failures)
	require.Error(t, c.Set(context.Background(), "user:1", "v", 0), "both hosts are down")
	s = c.Stats()
	assert.Equal(t, uint64(1), s.Retries, "one retry, no more")
	assert.Equal(t, uint64(2), s.Failures)
}

// End to end over two regions: region a's gateways serve its keys until the
// published failover table spills 30% of them to region b's gateway, and
// every key still reads back (the regions share the backend shards here).
func TestFailoverMovesTrafficEndToEnd(t *testing.T) {
	leak.Check(t)
	tr := startTier(t, 3, 1)
	c := newClient(t, client.Config{})
	rings := map[string]*hashring.Ring{"a": ring(t, tr.gws[:2], nil), "b": ring(t, tr.gws[2:], nil)}
	f := flags(t, 100, false)
	shareB := func(table *failover.Table) float64 {
		require.NoError(t, c.SetRoutes(client.Routes{Gateways: rings, Failover: table, Rollout: f}))
		before := c.Stats()
		const n, workers = 1000, 4
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := w; i < n; i += workers {
					key := fmt.Sprint("user:", i)
					assert.NoError(t, c.Set(context.Background(), key, key, 0))
					v, err := c.Get(context.Background(), key)
					assert.NoError(t, err)
					assert.Equal(t, key, v)
				}
			})
		}
		wg.Wait()
		return float64(c.Stats().Hosts[tr.gws[2].addr]-before.Hosts[tr.gws[2].addr]) / (2 * n)
	}
	assert.Zero(t, shareB(nil), "no table: every key stays home")
	spill := &failover.Table{Routes: []failover.Route{{From: "a", To: "b", Share: 0.3, Mechanism: failover.MechRing}}}
	assert.InDelta(t, 0.3, shareB(spill), 0.04)
	assert.Zero(t, shareB(&failover.Table{}), "spill over: back home")
	assert.Zero(t, c.Stats().Failures)
}
