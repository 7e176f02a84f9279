package main

import (
	"context"
	"fmt"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
	"github.com/tierkit/tierkit/failover"
)

func TestSpecDefaults(t *testing.T) {
	got := Spec{Tenants: 3, Cadence: time.Second}.withDefaults()
	assert.Equal(t, 3, got.Tenants, "a set field is kept")
	assert.Equal(t, time.Second, got.Cadence)
	d := DefaultSpec()
	assert.Equal(t, d.Regions, got.Regions)
	assert.Equal(t, d.Gateways, got.Gateways)
	assert.Equal(t, d.Burn, got.Burn)
	assert.NotNil(t, got.Logf)
}

func TestSnapshotWindow(t *testing.T) {
	earlier := Snapshot{
		Streams: map[string]Counts{"t00/eu": {OK: 5, Shed: 1}, "t01/us": {OK: 2}},
		Hosts:   map[string]map[string]uint64{"eu": {"a": 10, "gone": 4}},
	}
	later := Snapshot{
		Streams: map[string]Counts{"t00/eu": {OK: 9, Shed: 3, Failed: 1}, "t01/us": {OK: 7}},
		Hosts:   map[string]map[string]uint64{"eu": {"a": 15, "gone": 1, "new": 2}},
		LastErr: map[string]string{"t00/eu": "boom", "t01/us": "old"},
	}
	w := later.Sub(earlier)
	tests := []struct {
		name string
		give Counts
		want Counts
	}{
		{"tenant", w.Tenant("t00"), Counts{OK: 4, Shed: 2, Failed: 1}},
		{"region", w.Region("us"), Counts{OK: 5}},
		{"all", w.All(), Counts{OK: 9, Shed: 2, Failed: 1}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.give, tt.name)
	}
	assert.Equal(t, map[string]uint64{"a": 5, "new": 2}, w.HostTotals(), "a host whose pool closed counts 0, not a wrapped difference")
	assert.Equal(t, map[string]string{"t00/eu": "boom"}, w.LastErr, "only streams that failed in the window keep their error")
	assert.Equal(t, []string{"t00", "t01"}, w.Tenants())
	assert.Equal(t, uint64(12), w.All().Total())
}

func TestReport(t *testing.T) {
	r := &Report{Name: "x", Took: 1500 * time.Millisecond}
	r.figure("%d things", 3)
	r.check(true, "never shown")
	assert.True(t, r.OK())
	assert.Equal(t, "== x: PASS (1.5 s)\n   3 things\n", r.String())
	r.check(false, "wanted %d", 1)
	assert.False(t, r.OK())
	assert.Contains(t, r.String(), "== x: FAIL")
	assert.Contains(t, r.String(), "FAILED: wanted 1")
}

func TestHostWindowRatio(t *testing.T) {
	w := hostWindow{cpu: map[string]float64{"a": 0.9, "b": 0.3, "c": 0.6}}
	assert.InDelta(t, 2.0, w.ratio("a"), 1e-9)
	assert.Zero(t, hostWindow{cpu: map[string]float64{"a": 1}}.ratio("a"), "no peers")
}

// TestPollIsBounded: poll gives up once within has passed, having called
// cond at every interval until then. The bound runs on the bubble's clock: on
// the machine's, a 30 ms window was tight for a loaded 2-core machine under
// -race, where the test goroutine may be off the CPU for longer between the
// deadline being set and its first check, leaving one call.
func TestPollIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		calls := 0
		start := time.Now()
		err := poll(context.Background(), 30*time.Millisecond, time.Millisecond, func() (bool, error) { calls++; return false, nil })
		require.Error(t, err)
		assert.Equal(t, 31*time.Millisecond, time.Since(start), "the first tick past the bound")
		assert.Equal(t, 32, calls, "at 0 ms and at every tick to 31 ms")
	})
	require.NoError(t, poll(context.Background(), time.Second, time.Millisecond, func() (bool, error) { return true, nil }))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, poll(ctx, time.Second, time.Millisecond, func() (bool, error) { return false, nil }), context.Canceled)
}

func TestUnknownScenario(t *testing.T) {
	_, err := Run(context.Background(), nil, "no-such")
	require.Error(t, err)
	require.Error(t, run(context.Background(), "rollout,nope", Spec{}, false, true))
}

func TestRegionSummary(t *testing.T) {
	tick := func(phase string, home, out, want float64) regionTick {
		return regionTick{phase: phase, home: home, out: out, want: want, backupPhase: "local"}
	}
	tests := []struct {
		name  string
		ticks []regionTick
		falls int
		want  regionSummary
	}{
		{
			name: "one clean episode",
			ticks: []regionTick{
				tick("local", 0.5, 0, 0), tick("spilling", 0.8, 0.2, 0.2), tick("spilling", 0.95, 0.3, 0.3),
				tick("spilling", 0.7, 0.2, 0.2), tick("spilling", 0.6, 0.1, 0.1), tick("local", 0.5, 0, 0),
			},
			falls: 3,
			want: regionSummary{spillAt: 1, crossAt: 2, backAt: 5, maxOut: 0.3, maxHome: 0.95,
				changes: 5, hotTicks: 1, hotSpilling: 1},
		},
		{
			name: "flapping on the way back",
			ticks: []regionTick{
				tick("local", 0.5, 0, 0), tick("spilling", 0.9, 0.3, 0.3), tick("spilling", 0.7, 0.2, 0.2),
				tick("spilling", 0.8, 0.3, 0.3), tick("local", 0.5, 0, 0), tick("spilling", 0.85, 0.1, 0.1),
			},
			falls: 2,
			want: regionSummary{spillAt: 1, crossAt: 1, backAt: 4, maxOut: 0.3, maxHome: 0.9,
				changes: 5, reversals: 2, hotTicks: 1, hotSpilling: 1},
		},
	}
	for _, tt := range tests {
		rr := &regionRecorder{ticks: tt.ticks}
		assert.Equal(t, tt.want, rr.summarize(tt.falls), tt.name)
	}
}

// TestCalibratedBurn: the burn is lowered by what a command costs beyond the
// burn and the design's own 200 µs, never below a quarter, never raised.
func TestCalibratedBurn(t *testing.T) {
	tests := []struct {
		name       string
		burn       int
		perCommand float64
		want       int
	}{
		{"as designed", 800, 1000, 800},
		{"cheaper host: not raised", 800, 900, 800},
		{"race detector on a slow host", 800, 1515, 285},
		{"floor at a quarter", 800, 5000, 200},
		{"no burn", 0, 700, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, calibratedBurn(tt.burn, tt.perCommand))
		})
	}
}

func TestKeyShare(t *testing.T) {
	c := &Cluster{}
	for i := range 12 {
		c.Tenants = append(c.Tenants, fmt.Sprintf("t%02d", i))
	}
	for _, tc := range []struct {
		percent  float64
		min, max float64
	}{
		{0, 0, 0},
		{100, 1, 1},
		{50, 0.49, 0.52}, // binomial over 12,000 keys: sd 0.005
		{10, 0.09, 0.11},
	} {
		got, err := keyShare(c, tc.percent)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, got, tc.min, "at %v%%", tc.percent)
		assert.LessOrEqual(t, got, tc.max, "at %v%%", tc.percent)
	}
}

// TestMeanHomeCountsEachTickOnce: the calibration's mean is over n distinct
// plane ticks recorded in its window. The recorder polls at half the cadence,
// so it sees each tick twice, and the last tick of the warm-up is already
// recorded when the window opens; neither may enter the mean.
func TestMeanHomeCountsEachTickOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		calls := 0
		state := func() controlplane.State {
			calls++
			tick := uint64(1 + (calls-1)/2) // every tick is read by two polls
			sig := failover.Signal{Home: float64(tick)}
			return controlplane.State{Tick: tick, Regions: []controlplane.RegionState{
				{Name: "eu", Phase: "local", Signal: sig}, {Name: "us", Phase: "local", Signal: sig},
			}}
		}
		rr := &regionRecorder{c: &Cluster{Spec: Spec{Cadence: 400 * time.Millisecond}}, region: "eu", backup: "us",
			start: time.Now(), state: state}
		rr.sample() // the warm-up's last tick: 1
		got, err := rr.meanHome(context.Background(), 6)
		require.NoError(t, err)
		assert.InDelta(t, 4.5, got, 1e-9, "the mean of ticks 2..7")
		assert.Len(t, rr.ticks, 7)
	})
}

// TestCheckAddrs: gateways that report an address another gateway (or the
// dashboard) has are refused, with the address in the error.
func TestCheckAddrs(t *testing.T) {
	gw := func(id, resp, http string) *gatewayProc { return &gatewayProc{ID: id, RESP: resp, HTTP: http} }
	require.NoError(t, checkAddrs([]*gatewayProc{gw("eu-1", "h:1", "h:2"), gw("us-1", "h:3", "h:4")}, "h:5"))
	require.NoError(t, checkAddrs([]*gatewayProc{gw("eu-1", "h:1", "h:2")}, "h:0"), "the dashboard on a free port")
	tests := []struct {
		name      string
		gws       []*gatewayProc
		dashboard string
		want      string
	}{
		{"same HTTP", []*gatewayProc{gw("eu-1", "h:1", "h:2"), gw("us-1", "h:3", "h:2")}, "", "us-1's HTTP address h:2 is eu-1's HTTP address"},
		{"same RESP", []*gatewayProc{gw("eu-1", "h:1", "h:2"), gw("us-1", "h:1", "h:4")}, "", "us-1's RESP address h:1 is eu-1's RESP address"},
		{"HTTP on a RESP", []*gatewayProc{gw("eu-1", "h:1", "h:2"), gw("us-1", "h:3", "h:1")}, "", "us-1's HTTP address h:1 is eu-1's RESP address"},
		{"the dashboard's", []*gatewayProc{gw("eu-1", "h:1", "h:2")}, "h:2", "eu-1's HTTP address h:2 is the dashboard's address"},
	}
	for _, tt := range tests {
		assert.ErrorContains(t, checkAddrs(tt.gws, tt.dashboard), tt.want, tt.name)
	}
}

// TestSpecValidate: a region named twice (its gateways would share IDs and
// configuration files), an empty region name or one that is not a plain name
// is refused before anything starts.
func TestSpecValidate(t *testing.T) {
	require.NoError(t, DefaultSpec().validate())
	tests := []struct {
		give []string
		want string
	}{
		{[]string{"eu", "us", "eu"}, `cluster: region "eu" is named twice`},
		{[]string{"eu", ""}, "cluster: empty region name"},
		// A "/" counted the region's clients in another too (Snapshot.Region
		// matches the key's suffix) and, like a leading ".", placed a gateway's
		// configuration file outside the cluster's directory (found by a review).
		{[]string{"eu", "us/east"}, `cluster: region "us/east": want letters, digits, '-', '_' or '.', not first`},
		{[]string{"../etc"}, `cluster: region "../etc": want letters, digits, '-', '_' or '.', not first`},
		{[]string{"eu west"}, `cluster: region "eu west": want letters, digits, '-', '_' or '.', not first`},
	}
	for _, tt := range tests {
		assert.EqualError(t, Spec{Regions: tt.give}.withDefaults().validate(), tt.want)
	}
	// Out-of-range numbers (a zero takes the default): -tenants -1 started a
	// cluster of no tenant, and the noisy-tenant scenario panicked on it
	// (found by a review).
	for _, tt := range []struct {
		give Spec
		want string
	}{
		{Spec{Tenants: -1}, "cluster: Tenants out of range (want 1 to 100)"},
		{Spec{Gateways: -2}, "cluster: Gateways out of range (want >= 1)"},
		{Spec{Shards: -1}, "cluster: Shards out of range (want >= 1)"},
		{Spec{Workers: -1}, "cluster: Workers out of range (want >= 1)"},
		{Spec{Rate: -1}, "cluster: Rate out of range (want 1 to 1000)"},
		{Spec{Rate: math.NaN()}, "cluster: Rate out of range (want 1 to 1000)"},
		{Spec{Cores: -0.5}, "cluster: Cores out of range (want > 0)"},
		{Spec{Burn: -1}, "cluster: Burn out of range (want >= 0)"},
		{Spec{Cadence: -time.Second}, "cluster: Cadence out of range (want 100ms to 1s)"},
		{Spec{Follow: -time.Second}, "cluster: Follow out of range (want >= 1ms)"},
		// controlplane.Follow refuses it: the clients would never get routes.
		{Spec{Follow: time.Microsecond}, "cluster: Follow out of range (want >= 1ms)"},
	} {
		assert.EqualError(t, tt.give.withDefaults().validate(), tt.want)
	}
	_, err := Start(context.Background(), Spec{Regions: []string{"eu", "eu"}})
	assert.EqualError(t, err, `cluster: region "eu" is named twice`, "Start refuses it before building anything")
}

// TestCPUPerCommand: the peers' mean is over the peers measured in the
// window; a peer without commands in it, or without a state at its end (not
// running), is not counted as 0 µs, nor wraps its command count.
func TestCPUPerCommand(t *testing.T) {
	gws := []*gatewayProc{{ID: "hot"}, {ID: "a"}, {ID: "idle"}, {ID: "gone"}}
	before := map[string]HostState{
		"hot": {CPUSeconds: 1, Commands: 100}, "a": {CPUSeconds: 1, Commands: 100},
		"idle": {CPUSeconds: 1, Commands: 100}, "gone": {CPUSeconds: 1, Commands: 100},
	}
	after := map[string]HostState{
		"hot":  {CPUSeconds: 1.4, Commands: 200}, // 4000 µs a command
		"a":    {CPUSeconds: 1.1, Commands: 200}, // 1000 µs
		"idle": {CPUSeconds: 1.01, Commands: 100},
	}
	perCmd, peers := cpuPerCommand(gws, "hot", before, after)
	assert.InDelta(t, 4000, perCmd["hot"], 1e-6)
	assert.InDelta(t, 1000, perCmd["a"], 1e-6)
	assert.NotContains(t, perCmd, "idle")
	assert.NotContains(t, perCmd, "gone")
	assert.InDelta(t, 1000, peers, 1e-6, "the mean of the measured peers")
}

// TestClusterDeadline: a cluster test's context was a fixed 60 s, tight for a
// cluster's start and a scenario on a loaded machine; it ends now shortly
// before the test binary's deadline, or after 10 minutes without one.
func TestClusterDeadline(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	for _, tt := range []struct {
		left time.Duration // to the binary's deadline; 0: none
		want time.Duration // from now
	}{
		{10 * time.Minute, 10*time.Minute - cleanupMargin},
		{time.Minute, time.Minute - cleanupMargin},
		{2 * cleanupMargin, cleanupMargin},
		{20 * time.Second, 10 * time.Second}, // half of it, under twice the margin
		{0, 10 * time.Minute},
	} {
		got := clusterDeadline(now, now.Add(tt.left), tt.left > 0)
		assert.Equal(t, tt.want, got.Sub(now), "deadline in %v", tt.left)
	}
}
