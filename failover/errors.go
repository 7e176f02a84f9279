package failover

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrInvalidConfig is wrapped by the errors of [New] and [Router.SetConfig] for a
// Config that contradicts itself; fix it (SetConfig keeps the previous one).
var ErrInvalidConfig = errors.New("invalid config")

// ErrUnknownRegion is wrapped by the [*LoadError] of a [Load] naming a region
// that is not in the Config in force, such as a report still naming a region
// that SetConfig removed. Test it with errors.Is; the LoadError's Unknown
// lists every such report, to drop before stepping again once.
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
	// Unknown lists, when Err is ErrUnknownRegion, every region of the
	// loads that is not a region of the tier, each once, in the order of
	// the loads: Region first, then those after it (Reason names them).
	// Dropping them all lets one retry step, unless SetConfig removed more
	// meanwhile. Nil otherwise.
	Unknown []string
}

// Error implements error.
func (e *LoadError) Error() string {
	return fmt.Sprintf("failover: load for region %q: %s", e.Region, e.Reason)
}

// Unwrap returns e.Err.
func (e *LoadError) Unwrap() error { return e.Err }

// unknownRegions is the *LoadError of loads whose first, loads[0], names a
// region not in known: it lists every unknown region of loads, each once.
// The caller drops them all and steps again once, instead of once per stale
// region; the message of a single one is unchanged.
func unknownRegions(tier string, known map[string]bool, loads []Load) *LoadError {
	var names []string
	listed := make(map[string]bool)
	for _, l := range loads {
		if !known[l.Region] && !listed[l.Region] {
			listed[l.Region] = true
			names = append(names, l.Region)
		}
	}
	reason := fmt.Sprintf("not a region of tier %q", tier)
	if len(names) > 1 {
		quoted := make([]string, len(names)-1)
		for i, n := range names[1:] {
			quoted[i] = strconv.Quote(n)
		}
		reason += " (also unknown: " + strings.Join(quoted, ", ") + ")"
	}
	return &LoadError{Region: names[0], Reason: reason, Err: ErrUnknownRegion, Unknown: names}
}
