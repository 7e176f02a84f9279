package shed_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tierkit/tierkit/shed"
)

// BenchmarkSetConfigTenants measures a Shedder's SetConfig with an unchanged
// Config: it holds the lock while it visits every kept tenant, so this is how
// long every other caller waits (quoted in Shedder.SetConfig's doc, raw
// output in bench/shed/setconfig_walk.txt).
func BenchmarkSetConfigTenants(b *testing.B) {
	for _, n := range []int{1350, 100_000} {
		b.Run(fmt.Sprintf("tenants=%d", n), func(b *testing.B) {
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
			stop := cpuNs(b)
			for b.Loop() {
				if err := s.SetConfig(cfg); err != nil {
					b.Fatal(err)
				}
			}
			stop()
			b.ReportMetric(float64(s.Stats().Tenants), "tenants")
		})
	}
}
