package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWatchedKeylessExecCountsAsARequest: an EXEC without data commands but
// with a key watched is admitted and charged as a backend call (its
// commit's check; TestMemkvWatchedKeylessExecCharged), so it counts as one:
// in the tenant's requests and gateway_requests_total (under EXEC), and
// refused, in the errors too. Refused over quota it counted in the
// throttled counts alone: a tenant looping WATCH, MULTI, EXEC read
// throttled above its requests, which TestRedisWatchCountsAsARequest fixed
// for WATCH.
func TestWatchedKeylessExecCountsAsARequest(t *testing.T) {
	for _, kind := range []string{"memkv", "redis"} {
		t.Run(kind, func(t *testing.T) {
			be := BackendConfig{Shards: 2}
			if kind == "redis" {
				be = BackendConfig{Kind: "redis", Redis: []string{startRedis(t).addr}, Pool: 2}
			}
			in := startGateway(t, Config{HTTPAddr: "-", Backend: be,
				Tenants: []TenantConfig{{Name: "default", QuotaRate: 0.001, QuotaBurst: 10}}})
			g := in.gw
			ctx := context.Background()
			c := client(t, in, nil).Conn()
			defer c.Close()
			ten := g.tenants["default"]
			type counts struct{ requests, errors, throttled, ok, failed uint64 }
			read := func() counts {
				return counts{ten.requests.Load(), g.n.errors.Load(), ten.throttled.Load(),
					uint64(requestCount(t, g, "default", "EXEC", "ok")), uint64(requestCount(t, g, "default", "EXEC", "error"))}
			}
			delta := func(a, b counts) counts {
				return counts{b.requests - a.requests, b.errors - a.errors, b.throttled - a.throttled, b.ok - a.ok, b.failed - a.failed}
			}
			watchAndExec := func(debt bool) error {
				require.NoError(t, c.Do(ctx, "WATCH", "w").Err())
				if debt {
					ten.quota.charge(time.Now(), 20)
				}
				require.NoError(t, c.Do(ctx, "MULTI").Err())
				require.NoError(t, c.Do(ctx, "PING").Err())
				return c.Do(ctx, "EXEC").Err()
			}
			s0 := read()
			require.NoError(t, watchAndExec(false))
			s1 := read()
			// WATCH counts as a read of its key (on memkv, which reads it
			// from the store: TestMemkvWatchCountsAsARequest).
			wantWatch := counts{requests: 1}
			assert.Equal(t, counts{requests: wantWatch.requests + 1, ok: 1}, delta(s0, s1), "an admitted EXEC")
			require.ErrorContains(t, watchAndExec(true), "THROTTLED")
			assert.Equal(t, counts{requests: wantWatch.requests + 1, errors: 1, throttled: 1, failed: 1}, delta(s1, read()),
				"an EXEC refused over quota counts as a refused command")
		})
	}
}
