package failover_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReasonNamesThePercentile: a Reason names the percentile the signal reads.
// Printed with no decimals, a Percentile of 0.999 read "home p100" (the hottest
// host, which it does not read) and 0.875 read "p88".
func TestReasonNamesThePercentile(t *testing.T) {
	for p, name := range map[float64]string{0.9: "p90", 0.875: "p87.5", 0.995: "p99.5", 0.999: "p99.9", 1: "p100"} {
		cfg := six()
		cfg.Percentile = p
		r := mustNew(t, cfg)
		d := decision(stepNoHosts(t, r, 0.5), "b1")
		assert.Contains(t, d.Reason, "home "+name+" ", "Percentile %v", p)
		d = decision(stepNoHosts(t, r, 0.95), "b1")
		assert.Contains(t, d.Reason, "home "+name+" ", "Percentile %v", p)
	}
}
