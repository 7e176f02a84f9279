package shed_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tierkit/tierkit/shed"
)

// BenchmarkSetConfigTenants measures a Shedder's SetConfig with n idle tenants
// kept (nothing queued), for which it holds the lock, so this is how long
// every other caller waits (quoted in Shedder.SetConfig's doc, raw output in
// shed/setconfig_abba62.txt). change=none sets the same Config again;
// change=some alternates between two Configs that differ in one tenant's
// weight, the OverShareWindow (shortened, then lengthened) and the
// QueueDeadline (lowered, then raised).
func BenchmarkSetConfigTenants(b *testing.B) {
	for _, change := range []string{"none", "some"} {
		for _, n := range []int{1350, 100_000} {
			b.Run(fmt.Sprintf("change=%s/tenants=%d", change, n), func(b *testing.B) {
				benchSetConfig(b, change == "some", n)
			})
		}
	}
}

func benchSetConfig(b *testing.B, change bool, n int) {
	cfg := shed.Config{Capacity: shed.Fixed(1 << 30), IdleTimeout: time.Hour}
	s, err := shed.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, t := range tenantNames(n) {
		r, _ := s.Acquire(ctx, t, 0, 1)
		r()
	}
	cfgs := [2]shed.Config{cfg, cfg}
	if change {
		name := tenantNames(1)[0]
		cfgs[0].Weights = map[string]int{name: 4}
		cfgs[1].Weights = map[string]int{name: 2}
		cfgs[0].OverShareWindow, cfgs[1].OverShareWindow = 5*time.Second, 10*time.Second
		cfgs[0].QueueDeadline, cfgs[1].QueueDeadline = time.Second, 2*time.Second
	}
	b.ReportAllocs()
	stop := cpuNs(b)
	i := 0
	for b.Loop() {
		if err := s.SetConfig(cfgs[i&1]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	stop()
	b.ReportMetric(float64(s.Stats().Tenants), "tenants")
}
