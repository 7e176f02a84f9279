package controlplane

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Tenant names come from the gateways' answers, and the plane kept every name
// it ever saw, with its counters, in its state and in every history point. A
// gateway reporting new names at each poll (a lying one, or one whose tenants
// are renamed) grew the plane's memory and GET /api/state without bound. The
// plane tracks at most maxTenants, the first seen (by name within a tick, so
// which ones does not depend on map order).
func TestTenantsAreBounded(t *testing.T) {
	tick := 0
	poller := PollerFunc(func(_ context.Context, g Gateway) (Sample, error) {
		s := Sample{CPUSeconds: float64(tick), UptimeSeconds: float64(1 + tick), Commands: uint64(tick),
			Tenants: map[string]TenantSample{}}
		for i := range maxTenants / 3 {
			s.Tenants[fmt.Sprintf("%s-t%03d-%04d", g.ID, tick, i)] = TenantSample{Requests: 1, Shed: 1}
		}
		return s, nil
	})
	newPlane := func() *Plane {
		p, err := New(Config{Regions: []Region{{Name: "eu"}}, Poller: poller, Gateways: []Gateway{
			{ID: "eu-1", Region: "eu", RESP: "127.0.0.1:7001", HTTP: "127.0.0.1:7011", Cores: 1},
			{ID: "eu-2", Region: "eu", RESP: "127.0.0.1:7002", HTTP: "127.0.0.1:7012", Cores: 1},
		}})
		require.NoError(t, err)
		return p
	}
	a, b := newPlane(), newPlane()
	for tick = 0; tick < 10; tick++ {
		now := time.Unix(int64(1+tick), 0)
		require.NoError(t, a.Tick(context.Background(), now))
		require.NoError(t, b.Tick(context.Background(), now))
	}
	st := a.State()
	require.Equal(t, maxTenants, len(st.Tenants), "tenants tracked")
	require.LessOrEqual(t, len(st.History[len(st.History)-1].Shed), maxTenants)
	require.True(t, slices.Equal(st.Tenants, b.State().Tenants), "the same samples track the same tenants")
}
