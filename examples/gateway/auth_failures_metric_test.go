package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAuthFailuresCounted: an AUTH or HELLO AUTH refused (WRONGPASS: a user
// that is no tenant, or a wrong password) counts in
// gateway_auth_failures_total and INFO's acl_access_denied_auth (Redis 7's
// field), one series whatever the usernames sent: they come from clients,
// and a label of theirs would let anyone who can connect make series without
// bound. They were counted nowhere (the logs have no per-request lines), so a
// client guessing passwords left no trace. Found by a review.
func TestAuthFailuresCounted(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{{Name: "a", Password: "p"}}})
	g := in.gw
	rc, err := dialRESP(in.Addr())
	require.NoError(t, err)
	defer rc.close()
	seriesCount := func() int {
		mfs, err := g.metrics.reg.Gather()
		require.NoError(t, err)
		n := 0
		for _, mf := range mfs {
			n += len(mf.GetMetric())
		}
		return n
	}
	series0 := seriesCount()

	const users = 2000 // each a name of its own
	cmds := make([][]string, 0, users+3)
	for i := range users {
		if i%2 == 0 {
			cmds = append(cmds, []string{"AUTH", fmt.Sprint("guess", i), "x"})
		} else {
			cmds = append(cmds, []string{"HELLO", "3", "AUTH", fmt.Sprint("guess", i), "x"})
		}
	}
	cmds = append(cmds, []string{"AUTH", "a", "wrong"}, []string{"AUTH", "a", "p"}, []string{"INFO", "stats"})
	r, err := rc.do(cmds, false)
	require.NoError(t, err)
	require.Len(t, r, len(cmds))
	for _, x := range r[:users+1] {
		require.Equal(t, byte('-'), x.typ, "%v", x)
	}
	require.Equal(t, "OK", r[users+1].s)
	want := users + 1 // the wrong password of a tenant too; not the AUTH that passed

	m := series(t, g, "gateway_auth_failures_total", nil)
	require.NotNil(t, m, "gateway_auth_failures_total is served")
	assert.Equal(t, float64(want), m.GetCounter().GetValue())
	assert.Empty(t, m.GetLabel(), "no label: the usernames are the clients'")
	assert.Equal(t, series0, seriesCount(), "failed AUTHs make no series")
	assert.Equal(t, fmt.Sprint(want), infoLines(r[users+2].s)["acl_access_denied_auth"])
}
