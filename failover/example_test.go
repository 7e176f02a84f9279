package failover_test

import (
	"fmt"
	"time"

	"github.com/tierkit/tierkit/failover"
)

// Region b1's demand climbs two points a run. The signal (host p90 at the region's
// own demand, projected along its trend) fires while b1's mean CPU is still about
// 0.70, and the overflow goes to its mega-region neighbours.
func Example() {
	cfg := failover.Config{Tier: "general"}
	for _, n := range []string{"a1", "b1", "b2"} {
		mega := map[string]string{"a1": "east", "b1": "west", "b2": "west"}[n]
		cfg.Regions = append(cfg.Regions, failover.Region{Name: n, Mega: mega,
			Knobs: failover.Knobs{Mega: 100, Global: 100}})
	}
	router, err := failover.New(cfg)
	if err != nil {
		panic(err)
	}
	hostsAt := func(u float64) []float64 {
		h := make([]float64, 10)
		for i := range h {
			h[i] = u * (0.94 + 0.012*float64(i))
		}
		return h
	}
	for run := range 12 {
		u := 0.50 + 0.02*float64(run)
		tab, err := router.Step(time.Unix(int64(run)*60, 0), []failover.Load{
			{Region: "a1", Demand: 500, Capacity: 1000, HostCPU: hostsAt(0.5)},
			{Region: "b1", Demand: 1000 * u, Capacity: 1000, HostCPU: hostsAt(u)},
			{Region: "b2", Demand: 400, Capacity: 1000, HostCPU: hostsAt(0.4)},
		})
		if err != nil {
			panic(err)
		}
		d := tab.Regions[1]
		if d.Phase == failover.Spilling {
			fmt.Printf("run %d: b1 mean CPU %.2f, %s\n", run, d.Signal.Mean, d.Reason)
			for _, rt := range tab.Routes {
				fmt.Printf("  %s -> %s %.1f%% (%s)\n", rt.From, rt.To, 100*rt.Share, rt.Mechanism)
			}
			break
		}
	}
	// Output:
	// run 9: b1 mean CPU 0.68, fired: home p90 0.72 (mean CPU 0.68) trend +0.020/run projected 0.82, hot 0%
	//   b1 -> b2 8.3% (mega)
}
