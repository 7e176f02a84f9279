package controlplane_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// scripted is a Poller answering each gateway from a settable sample.
type scripted struct {
	mu sync.Mutex
	s  map[string]controlplane.Sample
}

func (sc *scripted) Poll(_ context.Context, g controlplane.Gateway) (controlplane.Sample, error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.s[g.ID], nil
}

func (sc *scripted) set(id string, cpu, up float64) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.s[id] = controlplane.Sample{CPUSeconds: cpu, UptimeSeconds: up}
}

// A single sample that passes Sample.check (finite, >= 0) but whose CPU delta
// over its uptime delta overflows to +Inf poisons the gateway's utilization
// for good: every later tick the balancer and the failover router reject their
// inputs, and GET /api/state answers 500.
func TestHugeSampleDoesNotWedgePlane(t *testing.T) {
	sc := &scripted{s: map[string]controlplane.Sample{}}
	cfg := controlplane.Config{
		Regions: []controlplane.Region{{Name: "eu", Backups: []string{"us"}}, {Name: "us", Backups: []string{"eu"}}},
		Poller:  sc,
	}
	for _, r := range []string{"eu", "us"} {
		for i := 1; i <= 2; i++ {
			cfg.Gateways = append(cfg.Gateways, gw(r, i, 0.5))
		}
	}
	p, err := controlplane.New(cfg)
	require.NoError(t, err)
	cpu := map[string]float64{}
	tick := func(k int) {
		for _, g := range cfg.Gateways {
			cpu[g.ID] += 0.25
			sc.set(g.ID, cpu[g.ID], float64(k))
		}
	}
	for k := 1; k <= 4; k++ {
		tick(k)
		require.NoError(t, p.Tick(context.Background(), t0.Add(time.Duration(k)*time.Second)))
	}
	before := p.Stats()
	// One glitchy sample: finite CPU seconds, 1/0.5 cores -> 2*MaxFloat64 = +Inf.
	sc.set("eu-1", math.MaxFloat64, 5)
	for _, g := range cfg.Gateways[1:] {
		cpu[g.ID] += 0.25
		sc.set(g.ID, cpu[g.ID], 5)
	}
	require.NoError(t, p.Tick(context.Background(), t0.Add(5*time.Second)))
	// Then it behaves again (its counters keep going from where they were).
	for k := 6; k <= 10; k++ {
		tick(k)
		sc.set("eu-1", math.MaxFloat64, float64(k))
		require.NoError(t, p.Tick(context.Background(), t0.Add(time.Duration(k)*time.Second)))
	}
	after := p.Stats()
	t.Logf("before %+v\nafter %+v", before, after)
	rec := httptest.NewRecorder()
	p.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/state", nil))
	require.Equal(t, http.StatusOK, rec.Code, "GET /api/state: %s", rec.Body.String())
	_, err = json.Marshal(p.State())
	require.NoError(t, err)
	require.Equal(t, before.BalancerErrors, after.BalancerErrors, "eu's balancer rejected every tick since")
	require.Equal(t, before.FailoverErrors, after.FailoverErrors, "the failover router rejected every tick since")
}

// Samples each finite, and each giving a finite utilization, can still add up
// to an infinite region demand (two gateways of one region each reporting a
// CPU delta of 0.6 x MaxFloat64): the failover router rejected it, and the
// estimate, smoothed with its own past, stayed infinite, so failover stopped
// for the whole tier and GET /api/state answered 500. A utilization no
// gateway can run at (beyond maxUtil) is a glitch, measured as a restart.
func TestHugeRegionDemandDoesNotWedgePlane(t *testing.T) {
	sc := &scripted{s: map[string]controlplane.Sample{}}
	cfg := controlplane.Config{
		Regions: []controlplane.Region{{Name: "eu", Backups: []string{"us"}}, {Name: "us", Backups: []string{"eu"}}},
		Poller:  sc,
	}
	for _, r := range []string{"eu", "us"} {
		for i := 1; i <= 2; i++ {
			cfg.Gateways = append(cfg.Gateways, gw(r, i, 1))
		}
	}
	p, err := controlplane.New(cfg)
	require.NoError(t, err)
	cpu := map[string]float64{}
	for k := 1; k <= 10; k++ {
		for _, g := range cfg.Gateways {
			cpu[g.ID] += 0.25
			sc.set(g.ID, cpu[g.ID], float64(k))
		}
		if k == 5 {
			sc.set("eu-1", 0.6*math.MaxFloat64, 5)
			sc.set("eu-2", 0.6*math.MaxFloat64, 5)
		}
		require.NoError(t, p.Tick(context.Background(), t0.Add(time.Duration(k)*time.Second)))
	}
	rec := httptest.NewRecorder()
	p.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/state", nil))
	require.Equal(t, http.StatusOK, rec.Code, "GET /api/state: %.300s", rec.Body.String())
	st := p.State()
	require.Zero(t, st.Stats.FailoverErrors)
	require.Zero(t, st.Stats.BalancerErrors)
	for _, r := range st.Regions {
		require.Less(t, r.Demand, 10.0, "region %s", r.Name)
	}
}

// An uptime that moves by a denormal (a garbled sample) turned a tenant's shed
// count into +Inf per second: the history kept it for Config.History ticks,
// and GET /api/state answered 500 all that time.
func TestTinyUptimeStepDoesNotPoisonHistory(t *testing.T) {
	sc := &scripted{s: map[string]controlplane.Sample{}}
	cfg := controlplane.Config{Regions: []controlplane.Region{{Name: "eu"}}, Poller: sc,
		Gateways: []controlplane.Gateway{gw("eu", 1, 1)}}
	p, err := controlplane.New(cfg)
	require.NoError(t, err)
	samples := []controlplane.Sample{
		{UptimeSeconds: 0},
		{UptimeSeconds: math.SmallestNonzeroFloat64, Shed: 1,
			Tenants: map[string]controlplane.TenantSample{"a": {Requests: 1, Shed: 1}}},
		{UptimeSeconds: 1, CPUSeconds: 0.1, Shed: 2,
			Tenants: map[string]controlplane.TenantSample{"a": {Requests: 2, Shed: 2}}},
	}
	for k, s := range samples {
		sc.mu.Lock()
		sc.s["eu-1"] = s
		sc.mu.Unlock()
		require.NoError(t, p.Tick(context.Background(), t0.Add(time.Duration(k)*time.Second)))
	}
	rec := httptest.NewRecorder()
	p.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/state", nil))
	require.Equal(t, http.StatusOK, rec.Code, "GET /api/state: %.300s", rec.Body.String())
}
