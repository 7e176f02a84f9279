package balancer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/balancer"
)

// TestZeroBandsTakeDefaults: RecenterBand and Deadband of 0 take their defaults
// (as their docs say), and the tiny value the docs offer instead of 0 is kept.
func TestZeroBandsTakeDefaults(t *testing.T) {
	cfg := mustNew(t, balancer.Config{}).Config()
	assert.Equal(t, 0.05, cfg.RecenterBand)
	assert.Equal(t, 0.03, cfg.Deadband)
	cfg = mustNew(t, balancer.Config{RecenterBand: 1e-12, Deadband: 1e-12}).Config()
	assert.Equal(t, 1e-12, cfg.RecenterBand)
	assert.Equal(t, 1e-12, cfg.Deadband)
}
