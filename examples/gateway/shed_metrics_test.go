package main

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// shedValue is the value of the shed series name for tenant at priority (and
// reason, if not empty), or -1 if the scrape has no such series.
func shedValue(t *testing.T, g *Gateway, name, tenant, prio, reason string) float64 {
	t.Helper()
	labels := map[string]string{"tenant": tenant, "priority": prio}
	if reason != "" {
		labels["reason"] = reason
	}
	m := series(t, g, name, labels)
	switch {
	case m == nil:
		return -1
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue()
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue()
	case m.GetSummary() != nil:
		return float64(m.GetSummary().GetSampleCount())
	}
	return -1
}

// TestShedMetricsByPriority: a tenant's command_priorities put its commands
// in two shed buckets, but /metrics showed only the gateway's total of
// commands shed, so an operator could not see them work. A scrape after
// commands at both priorities, one of them queued and one shed, shows each
// count under its tenant and priority, and a tenant with no traffic at
// zero (a series that appears at its first count loses that count to
// rate()).
func TestShedMetricsByPriority(t *testing.T) {
	in := startGateway(t, Config{MinLimit: 8, MaxLimit: 8, MaxQueue: 1, QueueDeadline: Duration(10 * time.Second),
		Tenants: []TenantConfig{{Name: "default", CommandPriorities: map[string]int{"GET": 1}}, {Name: "idle", Password: "pw"}}})
	g, ctx := in.gw, context.Background()
	// Without shedding on arrival, the second SET queued is refused for its
	// full bucket, whatever the tenant's share.
	require.NoError(t, g.setShedConfig(func() { g.shedCfg.ShedOnArrival = false }))
	c := client(t, in, nil)
	require.NoError(t, c.Set(ctx, "a", "1", 0).Err())
	require.NoError(t, c.Get(ctx, "a").Err())
	require.NoError(t, c.Get(ctx, "a").Err())

	held, err := g.shedder.Acquire(ctx, "other", 0, 8) // the whole capacity
	require.NoError(t, err)
	var once sync.Once
	hold := func() { once.Do(held) }
	t.Cleanup(hold) // on a failure too: before the shutdown
	low, high, full := client(t, in, nil), client(t, in, nil), client(t, in, nil)
	setDone, getDone := make(chan error, 1), make(chan error, 1)
	go func() { setDone <- low.Set(ctx, "b", "1", 0).Err() }()
	eventuallyWithin(t, 5*time.Second, "the SET queued", func() bool { return bucket(g, "default", 0).Queued == 1 })
	go func() { getDone <- high.Get(ctx, "a").Err() }()
	eventuallyWithin(t, 5*time.Second, "the GET queued", func() bool { return bucket(g, "default", 1).Queued == 1 })
	require.Error(t, full.Set(ctx, "c", "1", 0).Err(), "a second SET finds its bucket full")
	require.Equal(t, 1.0, shedValue(t, g, "gateway_shed_queued", "default", "0", ""))
	require.Equal(t, 1.0, shedValue(t, g, "gateway_shed_queued", "default", "1", ""))
	hold()
	for _, ch := range []chan error{setDone, getDone} {
		select {
		case err := <-ch:
			require.NoError(t, err)
		case <-time.After(5 * time.Second):
			t.Fatal("a queued command was not answered")
		}
	}

	for _, tc := range []struct {
		name, tenant, prio, reason string
		want                       float64
	}{
		{"gateway_shed_admitted_total", "default", "0", "", 2},
		{"gateway_shed_admitted_total", "default", "1", "", 3},
		{"gateway_shed_rejected_total", "default", "0", "bucket_full", 1},
		{"gateway_shed_rejected_total", "default", "1", "bucket_full", 0},
		{"gateway_shed_rejected_total", "default", "0", "queue_deadline", 0},
		{"gateway_shed_wait_seconds", "default", "0", "", 1}, // admitted after waiting
		{"gateway_shed_wait_seconds", "default", "1", "", 1},
		{"gateway_shed_queued", "default", "0", "", 0},
		{"gateway_shed_admitted_total", "idle", "0", "", 0},
		{"gateway_shed_admitted_total", "idle", "1", "", 0},
		{"gateway_shed_canceled_total", "idle", "1", "", 0},
	} {
		require.Equal(t, tc.want, shedValue(t, g, tc.name, tc.tenant, tc.prio, tc.reason), "%s{tenant=%s,priority=%s,reason=%s}",
			tc.name, tc.tenant, tc.prio, tc.reason)
	}
	require.Nil(t, series(t, g, "gateway_shed_admitted_total", map[string]string{"tenant": "other"}),
		"a tenant the gateway does not have (shed used directly here)")
}

// TestShedKeepsTenants: the per-bucket counts are shed's tenant state, which
// shed reclaimed after a minute idle by default, setting the tenant's
// counters of /metrics back to zero (a reset rate() misses once the counts
// are back above where they were). The gateway's tenants are its configured
// ones, so it keeps their state as long as shed can: shed.Config's
// IdleTimeout acts at most as 2^51 ns (about 26 days).
func TestShedKeepsTenants(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	require.GreaterOrEqual(t, in.gw.shedder.Config().IdleTimeout, time.Duration(1)<<51, "shed's longest idle timeout")
}

// TestInfoTenantShedByPriority: INFO's tenant line gave one shed count over
// both priorities. It shows shed's counts of each priority too: the
// requests admitted, refused (any reason, or canceled) and queued.
func TestInfoTenantShedByPriority(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{{Name: "default", CommandPriorities: map[string]int{"GET": 1}}}})
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Set(ctx, "a", "1", 0).Err())
	for range 2 {
		require.NoError(t, c.Get(ctx, "a").Err())
	}
	info := c.Info(ctx, "tenants").Val()
	require.Contains(t, info, ",admitted_p0=1,refused_p0=0,queued_p0=0,admitted_p1=2,refused_p1=0,queued_p1=0\r\n", info)
}
