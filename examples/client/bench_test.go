package client_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/hashring"
	"github.com/tierkit/tierkit/rollout"
)

func benchRoutes(b *testing.B) (client.Routes, *hashring.Ring) {
	nodes := make([]hashring.Node, 30)
	for i := range nodes {
		nodes[i] = hashring.Node{ID: fmt.Sprintf("127.0.0.1:%d", 7000+i), Weight: float64(26 + 10*(i%11))}
	}
	ring, err := hashring.New(hashring.Config{}, nodes)
	if err != nil {
		b.Fatal(err)
	}
	f, err := rollout.New(rollout.Config{Rules: []rollout.Rule{{Service: "svc", Prefix: "user:", Percent: 50}}})
	if err != nil {
		b.Fatal(err)
	}
	return client.Routes{Gateways: map[string]*hashring.Ring{"a": ring}, Rollout: f,
		Direct: []string{"127.0.0.1:6379", "127.0.0.1:6380", "127.0.0.1:6381", "127.0.0.1:6382"}}, ring
}

// sinkHost keeps the routed hosts alive for the compiler. Each goroutine of
// a parallel benchmark stores its last host once, when it is done: a store
// per operation from every goroutine would race (go test -race fails the
// benchmark) and bounce the variable's cache line between the cores, which
// the mutex baseline, storing under its lock, pays differently.
var (
	sinkMu   sync.Mutex
	sinkHost string
)

func sink(host string) {
	sinkMu.Lock()
	sinkHost = host
	sinkMu.Unlock()
}

// BenchmarkRoute is the per-request routing decision (rollout, failover,
// ring with retry host) on routes read through one atomic load, against a
// naive baseline that reads the routes under a mutex, asks LookupN for a
// fresh slice every time and checks no ejected or draining host.
func BenchmarkRoute(b *testing.B) {
	routes, ring := benchRoutes(b)
	keys := make([]string, 1024)
	for i := range keys {
		keys[i] = fmt.Sprint("user:", i)
	}
	b.Run("client", func(b *testing.B) {
		c, err := client.New(client.Config{Service: "svc", Region: "a"})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		if err := c.SetRoutes(routes); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i, host := 0, ""
			for pb.Next() {
				t, _ := c.Route(keys[i&1023])
				host = t.Host
				i++
			}
			sink(host)
		})
	})
	b.Run("naive-mutex", func(b *testing.B) {
		var mu sync.Mutex
		shards := make([]hashring.Node, len(routes.Direct))
		for i := range shards {
			shards[i] = hashring.Node{ID: fmt.Sprint("shard-", i), Weight: 1}
		}
		direct, err := hashring.New(hashring.Config{Slots: client.DirectSlots}, shards)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i, host := 0, ""
			for pb.Next() {
				mu.Lock()
				k := keys[i&1023]
				if routes.Rollout.Use(rollout.Query{Service: "svc", Key: k, Region: "a"}) {
					hosts, _ := ring.LookupN(k, 2)
					host = hosts[0]
				} else {
					host, _ = direct.Lookup(k)
				}
				mu.Unlock()
				i++
			}
			sink(host)
		})
	})
}

// BenchmarkSet measures one Set through a gateway process against the same
// Set sent directly to the redis-server shard behind it: the cost of the hop.
func BenchmarkSet(b *testing.B) {
	tr := startTier(b, 1, 1)
	for _, bc := range []struct {
		name    string
		percent float64
	}{{"gateway", 100}, {"direct", 0}} {
		b.Run(bc.name, func(b *testing.B) {
			c, err := client.New(client.Config{Service: "svc", Region: "a"})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			f, _ := rollout.New(rollout.Config{Rules: []rollout.Rule{{Service: "svc", Prefix: "user:", Percent: bc.percent}}})
			ring := ring(b, tr.gws, nil)
			if err := c.SetRoutes(client.Routes{Gateways: map[string]*hashring.Ring{"a": ring}, Rollout: f, Direct: tr.shards}); err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					if err := c.Set(ctx, fmt.Sprint("user:", i&1023), "v", 0); err != nil {
						b.Error(err)
						return
					}
					i++
				}
			})
			s := c.Stats()
			b.ReportMetric(float64(s.Gateway)/float64(s.Gateway+s.Direct), "gateway-share")
		})
	}
}
