package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// killed-gateway leaves its victim dead, so it must run last and once: a
// scenario after it failed on the dead gateway (hot-gateway heats it,
// noisy-tenant sets every gateway's knobs), and a second killed-gateway
// found a victim that served nothing before its "kill". A -scenario list
// ran the names as given. Found by a review.
func TestScenarioListKilledGatewayLast(t *testing.T) {
	for _, tt := range []struct{ give, want []string }{
		{[]string{"killed-gateway", "hot-gateway"}, []string{"hot-gateway", "killed-gateway"}},
		{[]string{"rollout", "killed-gateway", "noisy-tenant"}, []string{"rollout", "noisy-tenant", "killed-gateway"}},
		{[]string{"killed-gateway", "killed-gateway"}, []string{"killed-gateway"}},
		{[]string{"rollout", "hot-gateway", "rollout"}, []string{"rollout", "hot-gateway", "rollout"}},
	} {
		arg := ""
		for i, n := range tt.give {
			if i > 0 {
				arg += ","
			}
			arg += n
		}
		got, err := scenarioList(arg)
		require.NoError(t, err, arg)
		assert.Equal(t, tt.want, got, arg)
	}
	all, err := scenarioList("all")
	require.NoError(t, err)
	assert.Equal(t, "killed-gateway", all[len(all)-1])
}
