package failover

import (
	"errors"
	"fmt"
)

// ErrInvalidConfig is wrapped by the errors of [New] and [Router.SetConfig] for a
// Config that contradicts itself; fix it (SetConfig keeps the previous one).
var ErrInvalidConfig = errors.New("invalid config")

// LoadError reports an unusable [Load] (unknown or duplicate region, negative, NaN or
// infinite figures, a nonzero Capacity below [MinCapacity]). Step changes nothing when it returns one; the caller should keep the
// published table and fix its input.
type LoadError struct {
	Region string
	Reason string
}

// Error implements error.
func (e *LoadError) Error() string {
	return fmt.Sprintf("failover: load for region %q: %s", e.Region, e.Reason)
}
