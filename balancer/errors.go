package balancer

import (
	"errors"
	"fmt"
)

// ErrInvalidConfig is wrapped by the errors of [New] and [Balancer.SetConfig] for a
// Config out of range; fix the configuration (SetConfig keeps the previous one).
var ErrInvalidConfig = errors.New("invalid config")

// ErrNoHosts is returned by [Balancer.Step] for an empty host list: there is nothing
// to balance; the caller should skip the run.
var ErrNoHosts = errors.New("balancer: no hosts")

// HostError reports an unusable host record (negative, NaN or infinite CPU, cores
// <= 0, NaN or infinite, negative, NaN or infinite weight, empty or duplicate ID).
// Step changes nothing when it returns one: the caller should fix or drop the
// record and retry the run.
type HostError struct {
	ID     string // the host's ID, possibly empty
	Index  int    // position in the input
	Reason string // what is wrong
}

// Error implements error.
func (e *HostError) Error() string {
	return fmt.Sprintf("balancer: host %d (%q): %s", e.Index, e.ID, e.Reason)
}
