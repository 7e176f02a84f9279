package main

import (
	"bytes"
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

// TestScenarioListRefusesRepeats: a name given twice ran the scenario twice
// on one cluster (killed-gateway excepted, run once), but a scenario leaves
// the knobs, rates and rollout as it found them, not the balancer's weights:
// after hot-gateway, eu-1 keeps its lowered ring share (its CPU is then in
// line with its peers'), and a second hot-gateway failed by construction,
// its share unable to fall to 60% of an already lowered one within 20 s. A
// repeated name is a usage error now, killed-gateway's too, rather than
// silently run once: the caller asked for two runs and would not get them.
// Found by a review.
func TestScenarioListRefusesRepeats(t *testing.T) {
	for _, arg := range []string{"hot-gateway,hot-gateway", "rollout,hot-gateway,rollout", "killed-gateway,killed-gateway",
		"noisy-tenant,killed-gateway,noisy-tenant"} {
		got, err := scenarioList(arg)
		require.Error(t, err, "%s: ran %q", arg, got)
		assert.ErrorContains(t, err, "named twice", arg)
	}
	var errOut bytes.Buffer
	_, err := parseFlags([]string{"-scenario", "hot-gateway,hot-gateway"}, &errOut)
	require.Error(t, err)
	assert.Equal(t, "cluster: scenario \"hot-gateway\" named twice (run the command again to repeat one)\n", errOut.String())
}
