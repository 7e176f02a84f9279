package failover

import (
	"errors"
	"fmt"
)

// ErrInvalidConfig is wrapped by the errors of [New] and [Router.SetConfig] for a
// Config that contradicts itself; fix it (SetConfig keeps the previous one).
var ErrInvalidConfig = errors.New("invalid config")

// ErrUnknownRegion is wrapped by the [*LoadError] of a [Load] naming a region
// that is not in the Config in force, such as a report still naming a region
// that SetConfig removed. Test it with errors.Is; the LoadError's Region is
// the report to drop before stepping again.
var ErrUnknownRegion = errors.New("failover: unknown region")

// LoadError reports an unusable [Load] (unknown or duplicate region, negative, NaN or
// infinite figures, a nonzero Capacity below [MinCapacity]). Step changes nothing when it returns one; the caller should keep the
// published table and fix its input.
type LoadError struct {
	Region string
	Reason string
	// Err is ErrUnknownRegion when Region is not a region of the tier, nil
	// otherwise. Unwrap returns it, so errors.Is tells a stale report
	// (drop it) from a bad figure without parsing Reason.
	Err error
}

// Error implements error.
func (e *LoadError) Error() string {
	return fmt.Sprintf("failover: load for region %q: %s", e.Region, e.Reason)
}

// Unwrap returns e.Err.
func (e *LoadError) Unwrap() error { return e.Err }
