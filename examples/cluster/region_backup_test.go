package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// TestRegionOverloadBackupMustNotSpill: region-overload's doc says the
// backup never spills itself (a backup that spills cannot receive), but the
// scenario only reported the ticks it spilled as a figure and passed the
// same. Here the backup's gateways run at 120% from 5 s in (after the
// settle the scenario starts with), so it spills: the scenario must report it.
func TestRegionOverloadBackupMustNotSpill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		spec := Spec{Tenants: 1, Gateways: 1}.withDefaults()
		c := &Cluster{Spec: spec, Tenants: []string{"t00"}}
		var cfg controlplane.Config
		for i, r := range spec.Regions { // one gateway per region, never started: alive
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
		backup := spec.Regions[1]
		cfg.Poller = controlplane.PollerFunc(func(_ context.Context, g controlplane.Gateway) (controlplane.Sample, error) {
			up := time.Since(start).Seconds() + 1
			util := 0.4
			if g.Region == backup && up > 6 { // once the plane settled
				util = 1.2
			}
			return controlplane.Sample{CPUSeconds: util * spec.Cores * up, UptimeSeconds: up, GOMAXPROCS: 1}, nil
		})
		c.Plane, err = controlplane.New(cfg)
		require.NoError(t, err)
		done := make(chan struct{})
		go func() { defer close(done); _ = c.Plane.Run(ctx) }()
		defer func() { cancel(); <-done }()

		r := &Report{Name: "region-overload"}
		require.NoError(t, regionOverload(ctx, c, r))
		var reported bool
		for _, f := range r.Failures {
			reported = reported || strings.HasPrefix(f, "the backup "+backup+" never spills itself")
		}
		assert.True(t, reported, "the backup spilled; failures: %q", r.Failures)
	})
}
