package control

import (
	"fmt"
	"math"
)

// DefaultAuditSize is the number of audit entries kept when Config.AuditSize is 0.
const DefaultAuditSize = 1024

// Config holds the registry's tunables. The zero Config is valid: a 1024-entry
// audit log and no registry-wide change budget (per-knob MinInterval still
// applies).
type Config struct {
	// AuditSize bounds the audit log in entries (one per knob changed); the
	// oldest entries are dropped first, and a batch that lost one can no
	// longer be rolled back: neither can a batch of more changes than
	// AuditSize, at once. 0 means DefaultAuditSize.
	AuditSize int

	// Rate is the registry-wide change budget in applied requests per second
	// (a token bucket; one token per applied request, whatever its number of
	// changes; dry runs, no-op requests and rollbacks are free). 0 means no
	// budget.
	Rate float64

	// Burst is the bucket size: how many requests may apply back to back.
	// 0 means 1 when Rate is set.
	Burst int
}

func (c Config) validate() error {
	switch {
	case c.AuditSize < 0:
		return fmt.Errorf("control: AuditSize %d < 0", c.AuditSize)
	case c.Rate < 0 || math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0):
		return fmt.Errorf("control: Rate %v is not a finite number >= 0", c.Rate)
	case c.Burst < 0:
		return fmt.Errorf("control: Burst %d < 0", c.Burst)
	case c.Burst > 0 && c.Rate == 0:
		return fmt.Errorf("control: Burst %d without a Rate", c.Burst)
	}
	return nil
}

func (c Config) auditSize() int {
	if c.AuditSize == 0 {
		return DefaultAuditSize
	}
	return c.AuditSize
}

func (c Config) burst() float64 {
	if c.Burst == 0 {
		return 1
	}
	return float64(c.Burst)
}
