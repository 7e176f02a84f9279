//go:build linux

package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnansweredShardTurnWaitersFailWithinDialTimeout: commands on a shard
// whose connection attempts go unanswered, arriving while the pool's dials
// are in flight, fail within one dial timeout (1 s here) of their arrival.
// With go-redis's pool of 2, the first commands' two dials held both turns;
// a batch waiting for a turn took the one that the first failed dial freed
// and dialed again, since go-redis stops dialing only once as many dials as
// the pool's size have failed: its commands failed after two dial timeouts.
//
// The commands arrive one every 20 ms (the load's schedule, not a wait), so
// that the pool's two dials end 20 ms apart and a batch is waiting for a
// turn when the first ends. The dial timeout is 1 s, not the default 500 ms,
// so that the bound between one dial timeout and two leaves a busy host
// (the race detector beside other packages' tests on 2 cores) half a second
// of slack, not a quarter.
func TestUnansweredShardTurnWaitersFailWithinDialTimeout(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		addr := unanswered(t)
		const dialTimeout = time.Second
		in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{addr}, Pool: 2, Client: kind,
			DialTimeout: Duration(dialTimeout)}})
		const n = 24
		// A connection per command: with fewer (go-redis's default pool is
		// 10 per GOMAXPROCS), the last commands waited in this client for a
		// connection, not in the gateway, and reached it after its dial had
		// failed, to wait for a dial of their own.
		c := client(t, in, &redis.Options{PoolSize: n})
		ctx := context.Background()
		took := make([]time.Duration, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for i := range n {
			if i > 0 {
				<-tick.C
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				k := fmt.Sprint("k", i)
				start := time.Now()
				switch i % 3 {
				case 0:
					errs[i] = c.Set(ctx, k, "v", 0).Err()
				case 1:
					errs[i] = c.Get(ctx, k).Err()
				default:
					errs[i] = c.Incr(ctx, k).Err()
				}
				took[i] = time.Since(start)
			}()
		}
		wg.Wait()
		t.Logf("slowest command: %v", slices.Max(took))
		for i := range n {
			require.ErrorContains(t, errs[i], "backend shard 0", "command %d", i)
			assert.Less(t, took[i], dialTimeout*3/2, "command %d: one dial timeout, not two", i)
		}
	})
}
