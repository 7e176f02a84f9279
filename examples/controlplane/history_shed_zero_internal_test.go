package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHistoryKeepsOnlyShedding: every history point held every tracked
// tenant's shed rate, zeros included, so at maxTenants tenants and the
// default 300 points GET /api/state carried about 300,000 rates, most of them
// 0 (about 5 MB), which the dashboard fetches at each refresh. A point now
// holds the tenants that shed in its tick; a tenant absent shed none.
func TestHistoryKeepsOnlyShedding(t *testing.T) {
	tick := 0
	poller := PollerFunc(func(_ context.Context, g Gateway) (Sample, error) {
		s := Sample{CPUSeconds: float64(tick), UptimeSeconds: float64(1 + tick), Commands: uint64(100 * tick),
			Tenants: map[string]TenantSample{}}
		for i := range 100 {
			s.Tenants[fmt.Sprintf("t%03d", i)] = TenantSample{Requests: uint64(10 * tick)}
		}
		s.Tenants["noisy"] = TenantSample{Requests: uint64(10 * tick), Shed: uint64(5 * tick)}
		return s, nil
	})
	p, err := New(Config{Regions: []Region{{Name: "eu"}}, Poller: poller, Gateways: []Gateway{
		{ID: "eu-1", Region: "eu", RESP: "127.0.0.1:7001", HTTP: "127.0.0.1:7011", Cores: 1},
	}})
	require.NoError(t, err)
	for tick = 0; tick < 5; tick++ {
		require.NoError(t, p.Tick(context.Background(), time.Unix(int64(1+tick), 0)))
	}
	st := p.State()
	require.Len(t, st.Tenants, 101, "every tenant is still tracked")
	last := st.History[len(st.History)-1]
	assert.Equal(t, []string{"noisy"}, keys(last.Shed), "a history point holds the tenants that shed in its tick")
	assert.Positive(t, last.Shed["noisy"])
	b, err := json.Marshal(st)
	require.NoError(t, err)
	assert.Less(t, len(b), 20_000, "GET /api/state with 101 tenants and 5 points")
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
