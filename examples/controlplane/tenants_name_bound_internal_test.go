package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// maxTenants bounds how many tenant names the plane keeps, but not how long
// they are, and every history point repeats each tracked name. One gateway
// answer (it may be up to maxStateBody) with a few long names made GET
// /api/state grow by the answer's size at each tick, up to Config.History
// times it: 16 names of 64 KiB grew it by 1 MiB per tick. The plane does not
// track a name longer than maxTenantName bytes.
func TestTenantNamesAreBounded(t *testing.T) {
	tick := 0
	poller := PollerFunc(func(_ context.Context, g Gateway) (Sample, error) {
		s := Sample{CPUSeconds: float64(tick), UptimeSeconds: float64(1 + tick), Commands: uint64(tick),
			Tenants: map[string]TenantSample{"short": {Requests: uint64(tick), Shed: uint64(tick)}}}
		for i := range 16 {
			s.Tenants[fmt.Sprintf("%02d", i)+strings.Repeat("x", 64<<10)] = TenantSample{Requests: uint64(tick), Shed: uint64(tick)}
		}
		return s, nil
	})
	p, err := New(Config{Regions: []Region{{Name: "eu"}}, Poller: poller, Gateways: []Gateway{
		{ID: "eu-1", Region: "eu", RESP: "127.0.0.1:7001", HTTP: "127.0.0.1:7011", Cores: 1},
	}})
	require.NoError(t, err)
	for tick = 0; tick < 8; tick++ {
		require.NoError(t, p.Tick(context.Background(), time.Unix(int64(1+tick), 0)))
	}
	st := p.State()
	data, err := json.Marshal(st)
	require.NoError(t, err)
	require.Less(t, len(data), 64<<10, "GET /api/state size after 8 ticks")
	require.Len(t, st.Tenants, 1)
	require.Equal(t, "short", st.Tenants[0].Name)
	require.Equal(t, uint64(7), st.Tenants[0].Requests)
}
