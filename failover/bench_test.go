package failover_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

var sinkTable failover.Table

// BenchmarkStep measures one routing-table run (6 regions of 60 hosts, and 48
// regions in 8 mega-regions), against a naive baseline that only thresholds the mean.
func BenchmarkStep(b *testing.B) {
	for _, n := range []int{6, 48} {
		cfg := failover.Config{Tier: "bench"}
		var ls []failover.Load
		for i := range n {
			name := fmt.Sprint("r", i)
			cfg.Regions = append(cfg.Regions, failover.Region{Name: name, Mega: fmt.Sprint("m", i%8),
				Knobs: failover.Knobs{Mega: 100, Global: 100}})
			u := 0.5 + 0.5*float64(i%5)/5
			h := make([]float64, 60)
			for j := range h {
				h[j] = u * (0.95 + 0.1*float64(j)/59)
			}
			ls = append(ls, failover.Load{Region: name, Demand: 1000 * u, Capacity: 1000, HostCPU: h})
		}
		r, err := failover.New(cfg)
		require.NoError(b, err)
		b.Run(fmt.Sprintf("regions=%d/tierkit", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tab, err := r.Step(time.Unix(0, 0), ls)
				if err != nil {
					b.Fatal(err)
				}
				sinkTable = tab
			}
		})
		b.Run(fmt.Sprintf("regions=%d/naive-mean-threshold", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var tab failover.Table
				for _, l := range ls {
					m := 0.0
					for _, c := range l.HostCPU {
						m += c
					}
					if m/float64(len(l.HostCPU)) > 0.8 {
						tab.Routes = append(tab.Routes, failover.Route{From: l.Region, To: ls[0].Region, Share: 0.1})
					}
				}
				sinkTable = tab
			}
		})
	}
}

// BenchmarkPick is the client-side cost of choosing a region from a table.
func BenchmarkPick(b *testing.B) {
	r, err := failover.New(six())
	require.NoError(b, err)
	tab, err := r.Step(time.Unix(0, 0), loads(0.4, map[string]float64{"b1": 1.0, "a2": 0.95}))
	require.NoError(b, err)
	units := make([]string, 1024)
	for i := range units {
		units[i] = fmt.Sprint("client-", i)
	}
	b.ReportAllocs()
	i := 0
	var s string
	for b.Loop() {
		s = tab.Pick("b1", units[i&1023])
		i++
	}
	_ = s
}
