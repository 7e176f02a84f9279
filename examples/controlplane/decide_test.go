package controlplane

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/failover"
)

func TestEstimateDemand(t *testing.T) {
	regions := []string{"eu", "us", "ap"}
	ring := func(from, to string, s float64) failover.Route {
		return failover.Route{From: from, To: to, Share: s, Mechanism: failover.MechRing}
	}
	tests := []struct {
		name       string
		served     map[string]float64
		capacity   map[string]float64
		unmeasured map[string]bool
		routes     []failover.Route
		last       map[string]float64
		want       map[string]float64
	}{
		{
			name:     "no routes: demand is what each region serves",
			served:   map[string]float64{"eu": 2, "us": 1, "ap": 0.5},
			capacity: map[string]float64{"eu": 3, "us": 3, "ap": 3},
			want:     map[string]float64{"eu": 2, "us": 1, "ap": 0.5},
		},
		{
			// eu's clients cause 3 cores: 2 served at home (1/3 sent away), 1 in us.
			name:     "spill: the sender's demand is scaled up, the receiver's reduced",
			served:   map[string]float64{"eu": 2, "us": 2, "ap": 0.5},
			capacity: map[string]float64{"eu": 3, "us": 3, "ap": 3},
			routes:   []failover.Route{ring("eu", "us", 1.0/3)},
			want:     map[string]float64{"eu": 3, "us": 1, "ap": 0.5},
		},
		{
			name:     "split spill",
			served:   map[string]float64{"eu": 1.5, "us": 1.5, "ap": 1},
			capacity: map[string]float64{"eu": 3, "us": 3, "ap": 3},
			routes:   []failover.Route{ring("eu", "ap", 0.25), ring("eu", "us", 0.25)},
			want:     map[string]float64{"eu": 3, "us": 0.75, "ap": 0.25},
		},
		{
			name:     "a region without capacity keeps its last estimate",
			served:   map[string]float64{"eu": 0, "us": 1, "ap": 1},
			capacity: map[string]float64{"eu": 0, "us": 3, "ap": 3},
			last:     map[string]float64{"eu": 2.5},
			want:     map[string]float64{"eu": 2.5, "us": 1, "ap": 1},
		},
		{
			// eu's gateways are up but serve none of its clients: what they
			// serve says nothing of eu's demand, and taking it as all of it
			// read eu as idle (and us as carrying eu's load itself), which
			// winds the spill down and back up.
			name:     "a region sending everything away keeps its last estimate",
			served:   map[string]float64{"eu": 0.01, "us": 4, "ap": 1},
			capacity: map[string]float64{"eu": 3, "us": 6, "ap": 3},
			routes:   []failover.Route{ring("eu", "us", 1)},
			last:     map[string]float64{"eu": 3},
			want:     map[string]float64{"eu": 3, "us": 1, "ap": 1},
		},
		{
			// eu-4 joined: it serves a quarter of eu's clients with no
			// measurement yet, and the other three serve 1.5 x 3/4.
			name:       "a region with a gateway not measured yet keeps its last estimate",
			served:     map[string]float64{"eu": 1.125, "us": 1, "ap": 1},
			capacity:   map[string]float64{"eu": 3, "us": 3, "ap": 3},
			unmeasured: map[string]bool{"eu": true},
			last:       map[string]float64{"eu": 1.5, "us": 2},
			want:       map[string]float64{"eu": 1.5, "us": 1, "ap": 1},
		},
		{
			name:     "never negative",
			served:   map[string]float64{"eu": 2, "us": 0.1, "ap": 1},
			capacity: map[string]float64{"eu": 3, "us": 3, "ap": 3},
			routes:   []failover.Route{ring("eu", "us", 0.5)},
			want:     map[string]float64{"eu": 4, "us": 0, "ap": 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := estimateDemand(regions, tt.served, tt.capacity, tt.unmeasured, tt.routes, tt.last)
			for _, r := range regions {
				assert.InDelta(t, tt.want[r], got[r], 1e-9, r)
			}
		})
	}
}

func TestQuantize(t *testing.T) {
	r := func(from, to string, s float64) failover.Route {
		return failover.Route{From: from, To: to, Share: s, Mechanism: failover.MechRing}
	}
	tests := []struct {
		name string
		give []failover.Route
		want []failover.Route
	}{
		{"empty", nil, nil},
		{"rounds", []failover.Route{r("a", "b", 0.2349), r("a", "c", 0.1251)}, []failover.Route{r("a", "b", 0.23), r("a", "c", 0.13)}},
		{"drops a share that rounds to zero", []failover.Route{r("a", "b", 0.004), r("a", "c", 2.8e-18)}, nil},
		{"scales a sum above 1", []failover.Route{r("a", "b", 0.505), r("a", "c", 0.505)}, []failover.Route{r("a", "b", 0.5), r("a", "c", 0.5)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := quantize(tt.give, 0.01)
			assert.Len(t, got, len(tt.want))
			for i := range tt.want {
				assert.Equal(t, tt.want[i].To, got[i].To)
				assert.InDelta(t, tt.want[i].Share, got[i].Share, 1e-9)
			}
		})
	}
}

func TestObserve(t *testing.T) {
	s := func(cpu, up float64, cmds uint64) pollResult {
		return pollResult{sample: Sample{CPUSeconds: cpu, UptimeSeconds: up, Commands: cmds}}
	}
	tests := []struct {
		name    string
		polls   []pollResult
		health  Health
		hasUtil bool
		util    float64
		down    int
	}{
		{"one sample: no utilization yet", []pollResult{s(1, 10, 0)}, HealthUp, false, 0, 0},
		{"utilization over the gateway's own clock", []pollResult{s(1, 10, 0), s(1.5, 11, 100)}, HealthUp, true, 0.25, 0},
		{"smoothed", []pollResult{s(1, 10, 0), s(1.5, 11, 100), s(2.5, 12, 200)}, HealthUp, true, 0.375, 0},
		{"restart keeps the last measurement", []pollResult{s(1, 10, 0), s(1.5, 11, 100), s(0.1, 1, 5)}, HealthUp, true, 0.25, 0},
		{"restart starts over", []pollResult{s(1, 10, 0), s(1.5, 11, 100), s(0.1, 1, 5), s(1.1, 2, 10)}, HealthUp, true, 0.5, 0},
		{"failed polls count", []pollResult{s(1, 10, 0), {err: errors.New("refused")}, {err: errors.New("refused")}}, HealthDown, false, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &hostTrack{gw: Gateway{Cores: 2}, health: HealthUnknown}
			for _, p := range tt.polls {
				h.observe(p, 0.5)
			}
			assert.Equal(t, tt.health, h.health)
			assert.Equal(t, tt.hasUtil, h.hasUtil)
			assert.InDelta(t, tt.util, h.util, 1e-9)
			assert.Equal(t, tt.down, h.downTicks)
		})
	}
}

func TestWithin(t *testing.T) {
	r := func(to string, s float64) failover.Route {
		return failover.Route{From: "a", To: to, Share: s, Mechanism: failover.MechRing}
	}
	pub := []failover.Route{r("b", 0.31)}
	tests := []struct {
		name string
		raw  []failover.Route
		want bool
	}{
		{"hovering at a rounding boundary", []failover.Route{r("b", 0.315)}, true},
		{"one step away", []failover.Route{r("b", 0.32)}, true},
		{"more than a step", []failover.Route{r("b", 0.325)}, false},
		{"a new route", []failover.Route{r("b", 0.31), r("c", 0.05)}, false},
		{"the route ends", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, within(quantize(tt.raw, 0.01), tt.raw, pub, 0.01))
		})
	}
}
