package balancer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestMaxMeanSkipsUnreadHosts pins what Result.MaxMean and Decision.Load document:
// a host marked New or without a weight reports a CPU, but the run does not read it,
// so it is in neither the max nor the mean and its Load is 0.
func TestMaxMeanSkipsUnreadHosts(t *testing.T) {
	b := mustNew(t, balancer.Config{})
	res, err := b.Step(t0, []balancer.Host{
		{ID: "a", Cores: 8, Weight: 1, CPU: 0.4},
		{ID: "b", Cores: 8, Weight: 1, CPU: 0.6},
		{ID: "new", Cores: 8, CPU: 0.95, New: true},
		{ID: "weightless", Cores: 8, CPU: 0.9},
	})
	require.NoError(t, err)
	assert.InDelta(t, 0.6/0.5, res.MaxMean, 1e-12)
	assert.Zero(t, res.Hosts[2].Load)
	assert.Zero(t, res.Hosts[3].Load)
}
