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
