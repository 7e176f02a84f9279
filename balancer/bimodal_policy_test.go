package balancer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestBimodalPolicy: BimodalLoad's documented policy, "higher gain (0.8),
// wider clamp and a throttle opened to 25% of hosts", on a settled bimodal
// tier of 200 hosts that is not unsettled (the Wide policy would override it).
func TestBimodalPolicy(t *testing.T) {
	m := newModel(4, 200, func(i int) float64 { return []float64{0.75, 1.15}[i%2] * (0.97 + 0.0003*float64(i%100)) }, 5)
	for i := range m.hosts {
		m.hosts[i].Weight = m.hosts[i].Cores * m.eff[i] / 76
	}
	b := mustNew(t, balancer.Config{})
	res, err := b.Step(t0, m.observe())
	require.NoError(t, err)
	require.Equal(t, balancer.BimodalLoad, res.State, res.Evidence)
	require.False(t, res.Policy.Wide)
	assert.Equal(t, 50, res.Policy.MaxMoves, "25% of 200 hosts")
	assert.Equal(t, 0.8, res.Policy.Gain)
	assert.Greater(t, res.Policy.MaxStep, b.Config().MaxStep, "a wider clamp")
}
