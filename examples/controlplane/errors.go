package controlplane

import (
	"errors"
	"fmt"
)

// ErrInvalidConfig is wrapped by [New]'s errors for a Config that contradicts
// itself (besides a bad gateway, a *GatewayError); fix the configuration.
var ErrInvalidConfig = errors.New("invalid config")

// ErrUnknownGateway is returned by [Plane.RemoveGateway], [Plane.Drain] and
// [Plane.Undrain] for an ID the plane does not have; nothing changed.
var ErrUnknownGateway = errors.New("controlplane: unknown gateway")

// ErrBadRoutes is wrapped by [DecodeRoutes] and [FetchRoutes] for a routes document
// that cannot be applied (bad JSON, a corrupt ring, an invalid failover table or
// rollout config, a required part missing or null). The caller should keep the routes in force and fetch again.
var ErrBadRoutes = errors.New("controlplane: bad routes")

// ErrNoHostState is returned by [HTTPPoller] when a gateway's control state has no
// "host" entry (a gateway built without examples/gateway/planestate.go).
var ErrNoHostState = errors.New("controlplane: gateway state has no \"host\" entry")

// ErrBadState is wrapped by the poll errors of a gateway that answered but whose
// state cannot be used: a status other than 200 (a *StatusError), JSON that does
// not decode, no "host" entry ([ErrNoHostState]), a sample with a negative or NaN
// figure. The gateway is reachable, so it is shown as [HealthBadState] and not
// counted toward draining; it gives no signal until its state is readable again.
// A custom [Poller] wraps it for the same meaning.
var ErrBadState = errors.New("controlplane: unusable gateway state")

// ErrDuplicateGateway is wrapped by the *GatewayError of [Plane.AddGateway] for a
// gateway whose ID, RESP address or HTTP address the plane already has (an
// address in any spelling: "127.0.0.1:06380" is "127.0.0.1:6380", an IP in any
// of its forms, a host name in any case).
var ErrDuplicateGateway = errors.New("duplicate gateway")

// GatewayError reports a gateway that cannot be added: an empty or duplicate ID,
// RESP or HTTP address (a duplicate wraps [ErrDuplicateGateway]), an address
// that is not host:port, an unknown region, cores not > 0. Nothing changed; fix the record.
type GatewayError struct {
	ID     string
	Reason string
	Err    error // ErrDuplicateGateway or nil
}

// Unwrap returns e.Err.
func (e *GatewayError) Unwrap() error { return e.Err }

// Error implements error.
func (e *GatewayError) Error() string {
	return fmt.Sprintf("controlplane: gateway %q: %s", e.ID, e.Reason)
}

// StatusError is returned by [FetchRoutes] and [HTTPPoller] for an HTTP answer other
// than 200 OK.
type StatusError struct {
	URL    string
	Status int
	Body   string // the start of the answer's body, for the diagnosis
}

// Error implements error.
func (e *StatusError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("controlplane: GET %s: status %d", e.URL, e.Status)
	}
	return fmt.Sprintf("controlplane: GET %s: status %d: %s", e.URL, e.Status, e.Body)
}
