package failover_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestZeroLeadRunsMinChangeTakeDefaults: LeadRuns and MinChange of 0 take their
// defaults (as their docs say), and the tiny value the docs offer instead of 0 is
// kept.
func TestZeroLeadRunsMinChangeTakeDefaults(t *testing.T) {
	cfg := mustNew(t, six()).Config()
	assert.Equal(t, 5.0, cfg.LeadRuns)
	assert.Equal(t, 0.02, cfg.MinChange)
	c := six()
	c.LeadRuns, c.MinChange = 1e-12, 1e-12
	cfg = mustNew(t, c).Config()
	assert.Equal(t, 1e-12, cfg.LeadRuns)
	assert.Equal(t, 1e-12, cfg.MinChange)
}
