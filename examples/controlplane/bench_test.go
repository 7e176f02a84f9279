package controlplane_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// benchPlane is a plane over n fake gateways in 3 regions, warmed up.
func benchPlane(b *testing.B, n int) (*controlplane.Plane, *fakeTier) {
	ft := newFakeTier()
	cfg := controlplane.Config{Poller: ft, Regions: []controlplane.Region{
		{Name: "eu", Backups: []string{"us"}}, {Name: "us", Backups: []string{"ap"}}, {Name: "ap", Backups: []string{"eu"}}}}
	for i := range n {
		r := []string{"eu", "us", "ap"}[i%3]
		g := controlplane.Gateway{ID: fmt.Sprintf("%s-%d", r, i), Region: r, RESP: fmt.Sprintf("10.0.%d.%d:6379", i/250, i%250),
			HTTP: fmt.Sprintf("10.0.%d.%d:6380", i/250, i%250), Cores: float64(1 + i%4)}
		cfg.Gateways = append(cfg.Gateways, g)
		ft.add(g, -1)
		ft.set(g.ID, func(f *fakeGW) { f.skew = 1 + float64(i%5)/10 })
	}
	for _, r := range []string{"eu", "us", "ap"} {
		ft.setDemand(r, 0.5*float64(n)/3*2.5)
	}
	p, err := controlplane.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ft.plane = p
	k := 0
	run(b, p, ft, &k, 5)
	return p, ft
}

// BenchmarkTick is one control-loop run (in-process polls, balancer per region,
// failover, publication) over n gateways; the fakes' clock advance is included.
func BenchmarkTick(b *testing.B) {
	for _, n := range []int{6, 60, 600} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			p, ft := benchPlane(b, n)
			k := 5
			pubs := p.Stats().Publications
			b.ReportAllocs()
			for b.Loop() {
				ft.advance(time.Second)
				k++
				if err := p.Tick(context.Background(), t0.Add(time.Duration(k)*time.Second)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(p.Stats().Publications-pubs)/float64(b.N), "publications/op")
		})
	}
}

// BenchmarkRoutes compares a follower's poll when nothing changed (304 on the
// ETag) with a full fetch and decode of the routes document (60 gateways, 4096
// slots per ring).
func BenchmarkRoutes(b *testing.B) {
	p, _ := benchPlane(b, 60)
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()
	url := srv.URL + "/api/routes"
	b.Run("not-modified", func(b *testing.B) {
		resp, err := http.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		tag := resp.Header.Get("ETag")
		b.ReportAllocs()
		for b.Loop() {
			req, _ := http.NewRequest(http.MethodGet, url, nil)
			req.Header.Set("If-None-Match", tag)
			resp, err := http.DefaultClient.Do(req)
			if err != nil || resp.StatusCode != http.StatusNotModified {
				b.Fatal(err, resp.StatusCode)
			}
			resp.Body.Close()
		}
	})
	b.Run("full-fetch", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := controlplane.FetchRoutes(context.Background(), url); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkState is the /api/state snapshot with a full history (60 gateways).
func BenchmarkState(b *testing.B) {
	p, ft := benchPlane(b, 60)
	k := 5
	run(b, p, ft, &k, 300)
	b.ReportAllocs()
	for b.Loop() {
		_ = p.State()
	}
}
