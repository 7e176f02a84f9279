package main

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// scaleSession returns a session of the open tenant "default" on a gateway
// with n tenants in all, each with a quota and a command list, every one of
// them kept by shed (one admission each), as on a gateway whose tenants have
// all sent something.
func scaleSession(t *testing.T, n int) *session {
	t.Helper()
	tenants := make([]TenantConfig, n)
	for i := range tenants {
		tenants[i] = TenantConfig{Name: fmt.Sprint("t", i), Password: "p",
			Commands: []string{"GET", "SET"}, QuotaRate: 100}
	}
	tenants[0] = TenantConfig{Name: "default", Commands: []string{"GET", "SET"}, QuotaRate: 100}
	s := benchSession(t, Config{Tenants: tenants})
	for _, tc := range tenants {
		release, err := s.g.shedder.TryAcquire(tc.Name, 0, 1)
		require.NoError(t, err)
		release()
	}
	return s
}

// infoTenantsCost returns the bytes allocated and the time taken by one
// INFO TENANTS of s, the mean of 20.
func infoTenantsCost(s *session) (bytes uint64, took time.Duration) {
	const runs = 20
	args := [][]byte{[]byte("INFO"), []byte("tenants")}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	for range runs {
		cmdInfo(context.Background(), s, args)
	}
	took = time.Since(start) / runs
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / runs, took
}

// TestInfoTenantsCostFlatInTenants: INFO's Tenants section is one line, the
// caller's tenant's, but it read shed's buckets of every tenant (under the
// shedder's one lock, which every admission takes) and built a map of them
// to pick two: with 10,000 tenants, megabytes allocated and a walk over the
// whole tenant table per INFO, which any client may send (redis-cli --stat
// sends one a second). Its cost must not grow with the tenants configured.
func TestInfoTenantsCostFlatInTenants(t *testing.T) {
	small, large := scaleSession(t, 10), scaleSession(t, 10_000)
	info := string(cmdInfo(context.Background(), large, [][]byte{[]byte("INFO"), []byte("tenants")}).(verbatim))
	require.Contains(t, info, "tenant_default:requests=0,backend_calls=0,shed=0,throttled=0,denied=0,admitted_p0=1,refused_p0=0,queued_p0=0,admitted_p1=0,")
	infoTenantsCost(small) // warm up
	b10, d10 := infoTenantsCost(small)
	b10k, d10k := infoTenantsCost(large)
	t.Logf("INFO TENANTS: 10 tenants %d B %v, 10,000 tenants %d B %v", b10, d10, b10k, d10k)
	require.Less(t, b10k, b10+4096, "INFO's allocation grows with the tenant count")
}
