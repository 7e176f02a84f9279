package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// TestRegionOverloadCountsCalibrationFailures: region-overload counted failed
// requests from the end of its calibration on, so a request that failed in
// the calibration's 20 s or so (both regions' rates moved three times) went
// uncounted, although any failed request fails the scenario. Here a request
// fails while the calibration measures at half the spec's rate; the
// simulated gateways run at a steady 40% and never spill.
func TestRegionOverloadCountsCalibrationFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var once sync.Once
		r := runRegionOverload(t, func(c *Cluster, _ controlplane.Gateway, up float64) controlplane.Sample {
			for _, s := range c.Load.streams {
				if time.Duration(s.interval.Load()) == 2*time.Duration(float64(time.Second)/c.Spec.Rate) { // at half the rate
					once.Do(func() { s.record(errors.New("i/o timeout")) })
				}
			}
			return controlplane.Sample{CPUSeconds: 0.4 * c.Spec.Cores * up, UptimeSeconds: up, GOMAXPROCS: 1}
		})
		var counted bool
		for _, f := range r.Failures {
			counted = counted || strings.Contains(f, "i/o timeout")
		}
		assert.True(t, counted, "the failed request of the calibration fails the scenario; failures: %q", r.Failures)
	})
}

// runRegionOverload runs region-overload on a simulated two-region cluster
// (one gateway per region, never started: alive) whose plane polls sample,
// given the seconds since the start plus one, and returns the report. It is
// called inside a synctest bubble.
func runRegionOverload(t *testing.T, sample func(c *Cluster, g controlplane.Gateway, up float64) controlplane.Sample) *Report {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	spec := Spec{Tenants: 1, Gateways: 1}.withDefaults()
	c := &Cluster{Spec: spec, Tenants: []string{"t00"}}
	var cfg controlplane.Config
	for i, r := range spec.Regions {
		g := &gatewayProc{proc: &proc{done: make(chan struct{})}, ID: r + "-1", Region: r,
			RESP: fmt.Sprintf("127.0.0.1:%d", 2*i+1), HTTP: fmt.Sprintf("127.0.0.1:%d", 2*i+2)}
		c.Gateways = append(c.Gateways, g)
		cfg.Gateways = append(cfg.Gateways, controlplane.Gateway{ID: g.ID, Region: r, RESP: g.RESP, HTTP: g.HTTP, Cores: spec.Cores})
		cfg.Regions = append(cfg.Regions, controlplane.Region{Name: r, Backups: []string{spec.Regions[1-i]}})
	}
	cfg.Cadence = spec.Cadence
	var err error
	c.Load, err = NewLoad(c.loadSpec())
	require.NoError(t, err)
	defer func() { assert.NoError(t, c.Load.Close()) }()
	start := time.Now()
	cfg.Poller = controlplane.PollerFunc(func(_ context.Context, g controlplane.Gateway) (controlplane.Sample, error) {
		return sample(c, g, time.Since(start).Seconds()+1), nil
	})
	c.Plane, err = controlplane.New(cfg)
	require.NoError(t, err)
	done := make(chan struct{})
	go func() { defer close(done); _ = c.Plane.Run(ctx) }()
	defer func() { cancel(); <-done }()
	r := &Report{Name: "region-overload"}
	require.NoError(t, regionOverload(ctx, c, r))
	return r
}
