package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAuthTimeHidesWhichTenantsExist: a failed AUTH takes as long for a
// username that names no tenant as for one that does. The password was
// hashed only for an existing tenant, so a client that sent a long password
// learned which usernames are tenants from how fast WRONGPASS came back
// (with a 1 MiB password, a few microseconds against about a millisecond),
// though the reply's text is the same for both.
func TestAuthTimeHidesWhichTenantsExist(t *testing.T) {
	g := &Gateway{tenants: map[string]*tenant{"shop": newTenant(TenantConfig{Name: "shop", Password: "s3cret"})}}
	s := &session{g: g}
	pass := strings.Repeat("x", 1<<20)
	fastest := func(user string) time.Duration {
		best := time.Duration(1 << 62)
		for range 15 {
			start := time.Now()
			require.NotNil(t, s.auth(user, pass), "wrong password for %q", user)
			best = min(best, time.Since(start))
		}
		return best
	}
	known, unknown := fastest("shop"), fastest("nosuch")
	require.Nil(t, s.tenant, "a failed AUTH logs in nobody")
	// The same work for both: a timing gap of this size is the hash skipped.
	require.Greater(t, unknown, known/4, "an unknown username answered in %v, a tenant's in %v", unknown, known)
}
