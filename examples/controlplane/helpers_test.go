package controlplane_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/examples/controlplane"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fakeTier is a set of fake gateways answering polls from explicit figures, on
// explicit time: each advance moves every gateway's clock by dt and its CPU by
// dt x its utilization. The utilization follows the plane's published routes, as
// a real tier's would: a region serves its clients' demand (in cores) minus what
// it spills plus what it receives, spread over its gateways by their ring shares
// (draining ones excluded), times each gateway's cost factor (skew). A fixed
// utilization (util >= 0) overrides the model for one gateway.
type fakeTier struct {
	mu     sync.Mutex
	gws    map[string]*fakeGW // by gateway ID
	demand map[string]float64 // region -> demand in cores at skew 1
	plane  *controlplane.Plane
}

type fakeGW struct {
	gw          controlplane.Gateway
	skew        float64 // CPU cost factor: 1.5 = 50% more CPU per request
	util        float64 // fixed utilization when >= 0
	down        bool
	badState    bool // answers, with a state the plane cannot use
	uptime, cpu float64
	commands    uint64
	lastUtil    float64
	shedRate    map[string]float64 // tenant -> shed per second
	tenants     map[string]controlplane.TenantSample
}

func newFakeTier() *fakeTier {
	return &fakeTier{gws: map[string]*fakeGW{}, demand: map[string]float64{}}
}

// add registers a fake for g at a fixed utilization util (< 0: follow the model).
func (f *fakeTier) add(g controlplane.Gateway, util float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gws[g.ID] = &fakeGW{gw: g, skew: 1, util: util, uptime: 1, tenants: map[string]controlplane.TenantSample{}}
}

func (f *fakeTier) set(id string, fn func(g *fakeGW)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f.gws[id])
}

func (f *fakeTier) setDemand(region string, d float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.demand[region] = d
}

// utils computes each modelled gateway's utilization under the routes in force.
func (f *fakeTier) utilsLocked() map[string]float64 {
	out := map[string]float64{}
	if f.plane == nil {
		return out
	}
	r, _ := f.plane.Routes()
	served := map[string]float64{}
	for reg, d := range f.demand {
		served[reg] += d
	}
	for _, rt := range r.Failover.Routes {
		served[rt.From] -= f.demand[rt.From] * rt.Share
		served[rt.To] += f.demand[rt.From] * rt.Share
	}
	draining := map[string]bool{}
	for _, a := range r.Draining {
		draining[a] = true
	}
	live := map[string]float64{} // region -> ring share of gateways not draining
	for _, g := range f.gws {
		if ring := r.Gateways[g.gw.Region]; ring != nil && !draining[g.gw.RESP] {
			s, _ := ring.Share(g.gw.RESP)
			live[g.gw.Region] += s
		}
	}
	for id, g := range f.gws {
		ring := r.Gateways[g.gw.Region]
		if ring == nil || draining[g.gw.RESP] || live[g.gw.Region] == 0 {
			continue
		}
		s, _ := ring.Share(g.gw.RESP)
		out[id] = served[g.gw.Region] * s / live[g.gw.Region] / g.gw.Cores * g.skew
	}
	return out
}

// advance moves every fake's clock by dt.
func (f *fakeTier) advance(dt time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := dt.Seconds()
	model := f.utilsLocked()
	for id, g := range f.gws {
		u := g.util
		if u < 0 {
			u = model[id]
		}
		g.lastUtil = u
		g.uptime += s
		g.cpu += u * g.gw.Cores * s
		g.commands += uint64(1000 * u * s)
		for name, r := range g.shedRate {
			t := g.tenants[name]
			t.Shed += uint64(r * s)
			t.Requests += uint64(r * s)
			g.tenants[name] = t
		}
	}
}

// maxMean returns the max over mean utilization of region's modelled gateways at
// the last advance, and the max.
func (f *fakeTier) maxMean(region string) (ratio, max float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sum, n := 0.0, 0
	for _, g := range f.gws {
		if g.gw.Region == region && !g.down {
			sum += g.lastUtil
			n++
			max = math.Max(max, g.lastUtil)
		}
	}
	return max / (sum / float64(n)), max
}

var errDown = errors.New("fake: connection refused")

// Poll implements controlplane.Poller.
func (f *fakeTier) Poll(_ context.Context, g controlplane.Gateway) (controlplane.Sample, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fg := f.gws[g.ID]
	if fg == nil || fg.down {
		return controlplane.Sample{}, errDown
	}
	if fg.badState {
		return controlplane.Sample{}, fmt.Errorf("fake: %w", controlplane.ErrBadState)
	}
	s := controlplane.Sample{CPUSeconds: fg.cpu, UptimeSeconds: fg.uptime, Commands: fg.commands,
		Tenants: map[string]controlplane.TenantSample{}}
	for n, t := range fg.tenants {
		s.Tenants[n] = t
		s.Shed += t.Shed
	}
	return s, nil
}

// gw returns gateway i of region r.
func gw(r string, i int, cores float64) controlplane.Gateway {
	n := map[string]int{"eu": 1, "us": 2, "ap": 3}[r]
	return controlplane.Gateway{ID: fmt.Sprintf("%s-%d", r, i), Region: r, RESP: fmt.Sprintf("127.0.0.1:%d", 7000+n*100+i),
		HTTP: fmt.Sprintf("127.0.0.1:%d", 8000+n*100+i), Cores: cores}
}

// twoRegions is eu and us with 3 one-core gateways each, backing each other up,
// each region's clients causing demand cores of CPU.
func twoRegions(t testing.TB, demand float64) (*controlplane.Plane, *fakeTier) {
	t.Helper()
	return twoRegionsSlots(t, demand, 0)
}

// twoRegionsSlots is twoRegions with rings of slots slots (0: the default).
func twoRegionsSlots(t testing.TB, demand float64, slots int) (*controlplane.Plane, *fakeTier) {
	t.Helper()
	ft := newFakeTier()
	cfg := controlplane.Config{
		Regions: []controlplane.Region{{Name: "eu", Backups: []string{"us"}}, {Name: "us", Backups: []string{"eu"}}},
		Direct:  []string{"127.0.0.1:9000", "127.0.0.1:9001"},
		Cadence: time.Second,
		Poller:  ft,
		Slots:   slots,
	}
	for _, r := range []string{"eu", "us"} {
		for i := 1; i <= 3; i++ {
			g := gw(r, i, 1)
			cfg.Gateways = append(cfg.Gateways, g)
			ft.add(g, -1)
		}
		ft.setDemand(r, demand)
	}
	p, err := controlplane.New(cfg)
	require.NoError(t, err)
	ft.plane = p
	return p, ft
}

// run ticks p n times, one cadence apart from tick k on, advancing the fakes first.
func run(t testing.TB, p *controlplane.Plane, ft *fakeTier, k *int, n int) {
	t.Helper()
	for range n {
		ft.advance(time.Second)
		*k++
		require.NoError(t, p.Tick(context.Background(), t0.Add(time.Duration(*k)*time.Second)))
	}
}

func host(st controlplane.State, id string) controlplane.HostState {
	for _, h := range st.Hosts {
		if h.ID == id {
			return h
		}
	}
	return controlplane.HostState{}
}

func region(st controlplane.State, name string) controlplane.RegionState {
	for _, r := range st.Regions {
		if r.Name == name {
			return r
		}
	}
	return controlplane.RegionState{}
}

// spill returns the published share of from's demand sent elsewhere.
func spill(r client.Routes, from string) float64 {
	s := 0.0
	for _, rt := range r.Failover.Routes {
		if rt.From == from {
			s += rt.Share
		}
	}
	return s
}

// wireOf returns p's routes document as GET /api/routes serves it.
func wireOf(t testing.TB, p *controlplane.Plane) []byte {
	t.Helper()
	rec := httptest.NewRecorder()
	p.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/routes", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	return rec.Body.Bytes()
}

// postJSON returns a POST of body to path, declared as JSON as the handler requires.
func postJSON(path, body string) *http.Request {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return req
}
