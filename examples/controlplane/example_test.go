package controlplane_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// A region of three one-core gateways, where eu-3 spends 1.5x the CPU of its peers
// per request (an older machine, a noisy neighbour). The plane starts them at
// equal weights and lowers eu-3's until every gateway's CPU is within the
// balancer's deadband (10%) of the region's mean; then it holds. The gateways are
// simulated by a Poller on explicit time.
func Example() {
	var mu sync.Mutex
	clock := 1.0                // the gateways' uptime, seconds
	cpu := map[string]float64{} // cumulative CPU seconds
	cost := map[string]float64{"eu-1": 1, "eu-2": 1, "eu-3": 1.5}
	poller := controlplane.PollerFunc(func(_ context.Context, g controlplane.Gateway) (controlplane.Sample, error) {
		mu.Lock()
		defer mu.Unlock()
		return controlplane.Sample{CPUSeconds: cpu[g.ID], UptimeSeconds: clock}, nil
	})
	var gws []controlplane.Gateway
	for i := 1; i <= 3; i++ {
		gws = append(gws, controlplane.Gateway{ID: fmt.Sprintf("eu-%d", i), Region: "eu",
			RESP: fmt.Sprintf("127.0.0.1:%d", 6380+10*i), HTTP: fmt.Sprintf("127.0.0.1:%d", 6381+10*i), Cores: 1})
	}
	plane, err := controlplane.New(controlplane.Config{Regions: []controlplane.Region{{Name: "eu"}},
		Gateways: gws, Poller: poller})
	if err != nil {
		panic(err)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for k := 1; k <= 40; k++ {
		// One second of traffic: 1.8 cores of demand spread by the published ring.
		routes, _ := plane.Routes()
		mu.Lock()
		for _, g := range gws {
			share, _ := routes.Gateways["eu"].Share(g.RESP)
			cpu[g.ID] += 1.8 * share * cost[g.ID]
		}
		clock++
		mu.Unlock()
		if err := plane.Tick(context.Background(), start.Add(time.Duration(k)*time.Second)); err != nil {
			panic(err)
		}
	}
	for _, h := range plane.State().Hosts {
		fmt.Printf("%s share %.2f CPU %.2f (%s)\n", h.ID, h.Share, h.CPU, h.Reason)
	}
	// Output:
	// eu-1 share 0.37 CPU 0.67 (held)
	// eu-2 share 0.38 CPU 0.68 (held)
	// eu-3 share 0.25 CPU 0.68 (held)
}

// A client fetches the published routes: a ring per region, the failover table,
// the rollout flags and the direct shards, under one version.
func ExampleFetchRoutes() {
	plane, err := controlplane.New(controlplane.Config{
		Regions: []controlplane.Region{{Name: "eu", Backups: []string{"us"}}, {Name: "us", Backups: []string{"eu"}}},
		Gateways: []controlplane.Gateway{
			{ID: "eu-1", Region: "eu", RESP: "127.0.0.1:6380", HTTP: "127.0.0.1:6381", Cores: 2},
			{ID: "eu-2", Region: "eu", RESP: "127.0.0.1:6390", HTTP: "127.0.0.1:6391", Cores: 1},
			{ID: "us-1", Region: "us", RESP: "127.0.0.1:6400", HTTP: "127.0.0.1:6401", Cores: 1},
		},
		Direct: []string{"127.0.0.1:7000"},
	})
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(plane.Handler())
	defer srv.Close()
	routes, version, err := controlplane.FetchRoutes(context.Background(), srv.URL+"/api/routes")
	if err != nil {
		panic(err)
	}
	share, _ := routes.Gateways["eu"].Share("127.0.0.1:6380")
	fmt.Printf("version %d, %d regions, eu-1 share %.3f, %d failover routes, direct %v\n",
		version, len(routes.Gateways), share, len(routes.Failover.Routes), routes.Direct)
	// Output:
	// version 1, 2 regions, eu-1 share 0.667, 0 failover routes, direct [127.0.0.1:7000]
}
