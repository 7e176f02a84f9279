package main

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// upHoldProxy forwards Redis connections and, once armed, holds the next
// bytes a client sends until released: a command on its way that has not
// reached the server yet.
type upHoldProxy struct {
	*pipeProxy
	mu      sync.Mutex
	armed   bool
	arrived chan struct{} // closed when held bytes arrived
	release chan struct{} // closed to let them through
}

func startUpHoldProxy(t *testing.T, target string) *upHoldProxy {
	t.Helper()
	p := &upHoldProxy{arrived: make(chan struct{}), release: make(chan struct{})}
	p.pipeProxy = startPipeProxy(t, target, p.before)
	t.Cleanup(p.unblock) // before the proxy's close
	return p
}

func (p *upHoldProxy) before(up bool, _ []byte, _ *pipePair) {
	if !up {
		return
	}
	p.mu.Lock()
	armed := p.armed
	p.armed = false
	p.mu.Unlock()
	if armed {
		close(p.arrived)
		<-p.release
	}
}

func (p *upHoldProxy) arm() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.armed = true
}

func (p *upHoldProxy) unblock() {
	select {
	case <-p.release:
	default:
		close(p.release)
	}
}

// TestRedisVolatileSurvivesResubscription: a write through the gateway that
// gives a key an expiry marks its shard volatile (expiryFlag.writing) so that the
// next fill fetches PTTL; the feed's (re)subscription reads INFO keyspace and
// marks the shard not volatile when it shows no key with an expiry. A write
// that reached the shard after that INFO was read, but was marked before the
// subscription cleared the flag, lost its mark: the shard counted as holding
// no key with an expiry, a fill cached the key with none, and the client read
// it back after it expired, for as long as the feed lagged. Either order of
// the mark against the INFO is checked: the write marked and sent after INFO
// was read, and the write marked before, still on its way while INFO was
// read.
func TestRedisVolatileSurvivesResubscription(t *testing.T) {
	for _, when := range []string{"after INFO", "in flight across INFO"} {
		t.Run(when, func(t *testing.T) {
			shard := startRedis(t)
			p := startUpHoldProxy(t, shard.addr)
			ctx := context.Background()
			// The data path goes through p; INFO goes to the shard directly.
			b := newRedisBackend([]string{p.addr()}, nil, 1, "go-redis", redisAuth{})
			t.Cleanup(func() { _ = b.Close() })
			direct := redis.NewClient(&redis.Options{Addr: shard.addr, MaxRetries: -1})
			t.Cleanup(func() { _ = direct.Close() })
			b.shards[0] = direct
			b.fillTTL.Store(true)
			ct, err := newCacheTier(1, 100, time.Minute)
			require.NoError(t, err)
			t.Cleanup(ct.Close)

			set := []op{{kind: opSet, key: "k", value: []byte("v"), ttl: time.Minute}}
			var wrote sync.WaitGroup
			switch when {
			case "after INFO":
				ct.expiriesRead = func(int) {
					require.NoError(t, b.Do(ctx, 0, set, make([]opResult, 1)))
				}
			default:
				p.arm()
				wrote.Go(func() { assert.NoError(t, b.Do(ctx, 0, set, make([]opResult, 1))) })
				<-p.arrived // marked and sent; not yet run
				ct.expiriesRead = func(int) {
					close(p.release)
					wrote.Wait()
				}
			}
			ct.psubscribed(ctx, b, 0, new(markerState))
			wrote.Wait()
			n, err := direct.Exists(ctx, "k").Result()
			require.NoError(t, err)
			require.Equal(t, int64(1), n)

			out := make([]opResult, 1)
			require.NoError(t, b.Do(ctx, 0, []op{{kind: opGet, key: "k"}}, out))
			require.True(t, out[0].found)
			assert.NotZero(t, out[0].expireAt, "the fill of a key with an expiry read none: the shard lost its volatile mark")
		})
	}
}
