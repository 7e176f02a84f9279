package main

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestQuotaTokensUnlimited: gateway_quota_tokens is the allowance a tenant
// has left; a tenant without a quota (rate 0: unlimited) has no bound, and
// reads +Inf. It read what its bucket held: 1 for a tenant configured
// without a quota, as if one call from being throttled, and, for one whose
// quota was turned off (quota.<tenant>.rate 0) while in debt, the debt, for
// as long as it stayed unlimited.
func TestQuotaTokensUnlimited(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{{Name: "free"}, {Name: "capped", QuotaRate: 10, QuotaBurst: 10}}})
	g := in.gw
	tokens := func(tenant string) float64 {
		return series(t, g, "gateway_quota_tokens", map[string]string{"tenant": tenant}).GetGauge().GetValue()
	}
	assert.Equal(t, math.Inf(1), tokens("free"), "no quota")
	assert.InDelta(t, 10, tokens("capped"), 1e-6)

	q := g.tenants["capped"].quota
	now := time.Now()
	q.charge(now, 30) // a flush takes it into debt
	assert.Less(t, tokens("capped"), 0.0, "in debt")
	q.setRate(now, 0) // the quota turned off
	assert.Equal(t, math.Inf(1), tokens("capped"), "unlimited now")
}
