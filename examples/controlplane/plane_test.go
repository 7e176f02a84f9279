package controlplane_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
	"github.com/tierkit/tierkit/rollout"
)

func TestNewValidates(t *testing.T) {
	eu := []controlplane.Region{{Name: "eu"}}
	good := gw("eu", 1, 1)
	tests := []struct {
		name string
		give controlplane.Config
		want error // errors.Is target, nil for a *GatewayError
	}{
		{"no regions", controlplane.Config{}, controlplane.ErrInvalidConfig},
		{"smoothing", controlplane.Config{Regions: eu, Smoothing: 2}, controlplane.ErrInvalidConfig},
		{"slots", controlplane.Config{Regions: eu, Slots: 1000}, controlplane.ErrInvalidConfig},
		{"direct", controlplane.Config{Regions: eu, Direct: []string{""}}, controlplane.ErrInvalidConfig},
		{"unknown region", controlplane.Config{Regions: eu, Gateways: []controlplane.Gateway{gw("us", 1, 1)}}, nil},
		{"cores", controlplane.Config{Regions: eu, Gateways: []controlplane.Gateway{gw("eu", 1, 0)}}, nil},
		// two of 1e308 made the region's capacity +Inf: every failover tick
		// failed and /api/state could not be encoded (found by a review)
		{"huge cores", controlplane.Config{Regions: eu, Gateways: []controlplane.Gateway{gw("eu", 1, 1e308)}}, nil},
		// a subnormal one made the region's capacity one the failover router
		// refuses: every failover tick failed
		{"subnormal cores", controlplane.Config{Regions: eu, Gateways: []controlplane.Gateway{gw("eu", 1, 5e-324)}}, nil},
		{"duplicate", controlplane.Config{Regions: eu, Gateways: []controlplane.Gateway{good, good}}, controlplane.ErrDuplicateGateway},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := controlplane.New(tt.give)
			require.Error(t, err)
			if tt.want != nil {
				assert.ErrorIs(t, err, tt.want)
				return
			}
			var ge *controlplane.GatewayError
			assert.ErrorAs(t, err, &ge)
		})
	}
}

// New publishes version 1 at once, every gateway at a weight proportional to its
// cores, before any poll.
func TestNewPublishesCapacityWeights(t *testing.T) {
	ft := newFakeTier()
	p, err := controlplane.New(controlplane.Config{Regions: []controlplane.Region{{Name: "eu"}}, Poller: ft,
		Gateways: []controlplane.Gateway{gw("eu", 1, 1), gw("eu", 2, 2), gw("eu", 3, 1)}})
	require.NoError(t, err)
	r, v := p.Routes()
	assert.Equal(t, uint64(1), v)
	ring := r.Gateways["eu"]
	require.NotNil(t, ring)
	for id, want := range map[string]float64{"eu-1": 0.25, "eu-2": 0.5, "eu-3": 0.25} {
		share, ok := ring.Share(gw("eu", int(id[3]-'0'), 1).RESP)
		require.True(t, ok)
		assert.InDelta(t, want, share, 0.001, id)
	}
	assert.Empty(t, r.Failover.Routes)
	assert.False(t, r.Rollout.Use(rollout.Query{Service: "s", Key: "k"}), "zero rollout config: everything direct")
}

// A hot gateway (one that spends 60% more CPU per request than its peers) loses
// weight until its region is even, and once the decisions settle the version stops
// moving.
func TestHotGatewayLosesWeight(t *testing.T) {
	p, ft := twoRegions(t, 1.5)
	ft.set("eu-1", func(g *fakeGW) { g.skew = 1.6 })
	k := 0
	run(t, p, ft, &k, 1) // one sample: no utilization yet
	_, v0 := p.Routes()
	share0 := host(p.State(), "eu-1").Share
	assert.InDelta(t, 1.0/3, share0, 0.01)
	run(t, p, ft, &k, 1)
	ratio0, _ := ft.maxMean("eu")
	assert.Greater(t, ratio0, 1.3)
	assert.Equal(t, controlplane.HealthUp, host(p.State(), "eu-1").Health)
	assert.Equal(t, "steady-drift", region(p.State(), "eu").Class, "fewer than 8 hosts")
	assert.NotEmpty(t, region(p.State(), "eu").Evidence)

	run(t, p, ft, &k, 30)
	st := p.State()
	assert.Less(t, host(st, "eu-1").Share, share0-0.05, "the hot host's share drops")
	ratio, _ := ft.maxMean("eu")
	assert.Less(t, ratio, 1.12, "the region evens out (deadband 0.10)")
	_, v1 := p.Routes()
	assert.Greater(t, v1, v0)
	_, v2 := p.Routes()
	run(t, p, ft, &k, 10)
	_, v3 := p.Routes()
	assert.Equal(t, v2, v3, "settled: no weight changes, no new version")
	for _, h := range p.State().Hosts {
		assert.Greater(t, h.Weight, 0.0)
		assert.Contains(t, []string{"held", "no-signal"}, h.Reason, h.ID)
	}
}

// A gateway that cannot be polled is marked down at once and listed as draining
// after DrainAfter ticks, keeps its weight and ring slot, and comes back when it
// answers again.
func TestUnreachableGatewayDrains(t *testing.T) {
	p, ft := twoRegions(t, 1.5)
	k := 0
	run(t, p, ft, &k, 3)
	w := host(p.State(), "us-2").Weight
	ft.set("us-2", func(g *fakeGW) { g.down = true })
	run(t, p, ft, &k, 1)
	st := p.State()
	h := host(st, "us-2")
	assert.Equal(t, controlplane.HealthDown, h.Health)
	assert.False(t, h.Draining)
	assert.Contains(t, h.Error, "refused")
	cap1 := region(p.State(), "us").Capacity
	assert.Equal(t, 3.0, cap1, "a missed poll does not cut the region's capacity before it drains")
	run(t, p, ft, &k, 2) // DrainAfter = 3
	assert.Equal(t, 2.0, region(p.State(), "us").Capacity, "a draining gateway does not count")
	r, v := p.Routes()
	assert.Equal(t, []string{gw("us", 2, 1).RESP}, r.Draining)
	assert.True(t, r.Gateways["us"].Contains(gw("us", 2, 1).RESP), "a draining host stays in the ring")
	assert.Equal(t, w, host(p.State(), "us-2").Weight, "no signal: weight kept")
	assert.Equal(t, 1, p.Stats().Draining)

	ft.set("us-2", func(g *fakeGW) { g.down = false })
	run(t, p, ft, &k, 1)
	r, v2 := p.Routes()
	assert.Empty(t, r.Draining)
	assert.Greater(t, v2, v)
	assert.Equal(t, controlplane.HealthUp, host(p.State(), "us-2").Health)
}

// A region pushed toward overload spills to its backup before its hottest gateway
// crosses 90% CPU, and returns home after it cools, without flapping.
func TestRegionSpillsAndReturns(t *testing.T) {
	p, ft := twoRegions(t, 1.2)
	k := 0
	run(t, p, ft, &k, 3)
	r, _ := p.Routes()
	assert.Zero(t, spill(r, "eu"))
	fired := false
	for d := 1.2; d < 3.2 && !fired; d += 0.05 {
		ft.setDemand("eu", d)
		run(t, p, ft, &k, 1)
		_, hottest := ft.maxMean("eu")
		r, _ := p.Routes()
		if fired = spill(r, "eu") > 0; !fired {
			require.Less(t, hottest, 0.9, "eu crossed 90%% CPU at demand %.2f without spilling", d)
		}
	}
	require.True(t, fired, "eu never spilled")
	st := p.State()
	assert.Equal(t, "spilling", region(st, "eu").Phase)
	assert.Equal(t, "us", region(st, "eu").Routes[0].To)
	assert.Positive(t, region(st, "eu").Demand)
	for range 20 { // hold the pressure: the spill keeps eu under 90%
		run(t, p, ft, &k, 1)
		_, hottest := ft.maxMean("eu")
		assert.Less(t, hottest, 0.9)
	}

	// Cool down: the spill winds down and ends; count the direction changes.
	ft.setDemand("eu", 0.9)
	reversals, last, prevShare := 0, 0, -1.0
	for range 150 {
		run(t, p, ft, &k, 1)
		r, _ := p.Routes()
		s := spill(r, "eu")
		if prevShare >= 0 && s != prevShare {
			dir := 1
			if s < prevShare {
				dir = -1
			}
			if last != 0 && dir != last {
				reversals++
			}
			last = dir
		}
		prevShare = s
	}
	r, _ = p.Routes()
	assert.Zero(t, spill(r, "eu"), "traffic returned home")
	assert.Equal(t, "local", region(p.State(), "eu").Phase)
	assert.Zero(t, reversals, "the spill share wound down without flapping")
}

// Add and remove gateways: capacity weights at once, new versions, typed errors.
func TestAddRemoveDrain(t *testing.T) {
	p, ft := twoRegions(t, 1.5)
	k := 0
	run(t, p, ft, &k, 2)
	_, v := p.Routes()
	g := gw("eu", 4, 2)
	ft.add(g, -1)
	require.NoError(t, p.AddGateway(g))
	r, v2 := p.Routes()
	assert.Equal(t, v+1, v2)
	share, ok := r.Gateways["eu"].Share(g.RESP)
	require.True(t, ok)
	assert.InDelta(t, 2*0.85/(3+2*0.85), share, 0.01, "capacity-scaled, NewHostFactor 0.85")

	var ge *controlplane.GatewayError
	assert.ErrorIs(t, p.AddGateway(g), controlplane.ErrDuplicateGateway)
	assert.ErrorAs(t, p.AddGateway(gw("mars", 1, 1)), &ge)
	assert.ErrorIs(t, p.RemoveGateway("nope"), controlplane.ErrUnknownGateway)
	assert.ErrorIs(t, p.Drain("nope"), controlplane.ErrUnknownGateway)

	run(t, p, ft, &k, 2)
	assert.Equal(t, controlplane.HealthUp, host(p.State(), g.ID).Health)
	require.NoError(t, p.Drain("eu-1"))
	r, _ = p.Routes()
	assert.Equal(t, []string{gw("eu", 1, 1).RESP}, r.Draining)
	require.NoError(t, p.Undrain("eu-1"))
	require.NoError(t, p.RemoveGateway("eu-1"))
	r, _ = p.Routes()
	assert.Empty(t, r.Draining)
	assert.False(t, r.Gateways["eu"].Contains(gw("eu", 1, 1).RESP))
	assert.Equal(t, 3, r.Gateways["eu"].Len())
	assert.Len(t, p.Gateways(), 6)
}

// SetRollout publishes at once; a bad config keeps the previous flags.
func TestSetRollout(t *testing.T) {
	p, _ := twoRegions(t, 1.5)
	_, v := p.Routes()
	require.NoError(t, p.SetRollout(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}}}))
	r, v2 := p.Routes()
	assert.Equal(t, v+1, v2)
	assert.True(t, r.Rollout.Use(rollout.Query{Service: "s", Key: "k"}))
	require.Error(t, p.SetRollout(rollout.Config{Rules: []rollout.Rule{{Service: "", Percent: 5}}}))
	r, v3 := p.Routes()
	assert.Equal(t, v2, v3)
	assert.True(t, r.Rollout.Use(rollout.Query{Service: "s", Key: "k"}))
	require.NoError(t, p.SetRollout(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}}, Kill: true}))
	r, _ = p.Routes()
	assert.False(t, r.Rollout.Use(rollout.Query{Service: "s", Key: "k"}), "kill switch")
	assert.True(t, p.State().Rollout.Kill)
}

// Per-tenant shedding is summed over the gateways.
func TestTenantShedding(t *testing.T) {
	p, ft := twoRegions(t, 1.5)
	for _, id := range []string{"eu-1", "us-3"} {
		ft.set(id, func(g *fakeGW) { g.shedRate = map[string]float64{"noisy": 100, "calm": 0} })
	}
	k := 0
	run(t, p, ft, &k, 4)
	st := p.State()
	require.Len(t, st.Tenants, 2)
	assert.Equal(t, "calm", st.Tenants[0].Name)
	assert.Zero(t, st.Tenants[0].Shed)
	assert.Equal(t, "noisy", st.Tenants[1].Name)
	assert.InDelta(t, 200, st.Tenants[1].ShedRate, 1)
	assert.Equal(t, uint64(600), st.Tenants[1].Shed, "3 tick deltas x 2 gateways x 100")
	assert.Len(t, st.History, 4)
	assert.InDelta(t, 200, st.History[3].Shed["noisy"], 1)
}

// A canceled tick changes nothing.
func TestTickCanceled(t *testing.T) {
	p, _ := twoRegions(t, 1.5)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := p.Tick(ctx, t0)
	assert.True(t, errors.Is(err, context.Canceled))
	assert.Zero(t, p.State().Tick)
}

// Run ticks until its context ends, then returns.
func TestRun(t *testing.T) {
	noLeaks(t)
	ft := newFakeTier()
	g := gw("eu", 1, 1)
	ft.add(g, 0.5)
	p, err := controlplane.New(controlplane.Config{Regions: []controlplane.Region{{Name: "eu"}},
		Gateways: []controlplane.Gateway{g}, Poller: ft, Cadence: time.Millisecond})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for p.Stats().Ticks < 3 { // bounded poll on a condition
		require.True(t, time.Now().Before(deadline), "Run did not tick")
		ft.advance(time.Millisecond)
		time.Sleep(time.Millisecond)
	}
	cancel()
	require.NoError(t, <-done)
}
