package hashring

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Match them with [errors.Is]; the node-specific ones arrive wrapped
// in a [*NodeError] that names the node.
var (
	// ErrEmpty is returned by lookups on a ring without nodes. The caller should fail
	// the request (there is nowhere to send it) or wait for a membership update.
	ErrEmpty = errors.New("hashring: ring is empty")

	// ErrInvalidConfig is wrapped by the error of [New] for a [Config] out of
	// range (Slots not a power of two in [2^8, 2^24]). The caller should fix
	// the configuration.
	ErrInvalidConfig = errors.New("invalid config")

	// ErrBadWeight means a weight is not a finite number > 0, or the weights sum to
	// infinity (the *NodeError then names the heaviest node). The caller should fix
	// the weight it computed; the ring is unchanged.
	ErrBadWeight = errors.New("hashring: weight must be finite and > 0")

	// ErrBadID means a node ID is empty. The caller should name the node.
	ErrBadID = errors.New("hashring: node ID must not be empty")

	// ErrDuplicateNode means a node ID appears twice among the nodes given to New,
	// Add, Update or Unmarshal, or that Add was given a member. The caller should use
	// [Ring.Reweight] or [Ring.Update] to change a member. (An ID given twice to
	// [Ring.Remove] is [ErrUnknownNode]: the second removal finds it gone.)
	ErrDuplicateNode = errors.New("hashring: duplicate node")

	// ErrUnknownNode means a removed or reweighted node is not in the ring. The caller
	// holds a stale view of the membership and should refresh it.
	ErrUnknownNode = errors.New("hashring: unknown node")

	// ErrTooManyNodes means the ring would hold more than [MaxNodes] nodes.
	ErrTooManyNodes = errors.New("hashring: too many nodes")

	// ErrBadCount is returned by LookupN for n < 1.
	ErrBadCount = errors.New("hashring: replica count must be >= 1")

	// ErrBadLoadFactor is returned by the bounded-load lookups when c is not a finite
	// number >= 1 (below 1 the bound cannot be met by every node at once).
	ErrBadLoadFactor = errors.New("hashring: load factor must be finite and >= 1")
)

// NodeError reports which node an operation rejected. Err is one of [ErrBadWeight],
// [ErrBadID], [ErrDuplicateNode] or [ErrUnknownNode]; errors.Is sees through it.
type NodeError struct {
	Op     string  // "new", "add", "remove", "reweight", "update" or "unmarshal"
	ID     string  // the node concerned
	Weight float64 // the weight given, when relevant
	Err    error   // the sentinel
}

// Error implements error.
func (e *NodeError) Error() string {
	// The sentinels' own "hashring: " prefix is said once, at the front.
	msg := "<nil>"
	if e.Err != nil {
		msg = strings.TrimPrefix(e.Err.Error(), "hashring: ")
	}
	if errors.Is(e.Err, ErrBadWeight) {
		return fmt.Sprintf("hashring: %s %q: weight %v: %s", e.Op, e.ID, e.Weight, msg)
	}
	return fmt.Sprintf("hashring: %s %q: %s", e.Op, e.ID, msg)
}

// Unwrap returns the sentinel.
func (e *NodeError) Unwrap() error { return e.Err }
