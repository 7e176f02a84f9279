// Package controlplane is the control plane of a gateway tier: it polls every
// gateway's state, runs package balancer per region and package failover across
// regions on a fixed cadence, and publishes host weights (a weighted hashring per
// region), region routes (a failover table), rollout flags, draining hosts and the
// direct-mode shards, which thin clients (examples/client) pick up with
// [FetchRoutes] or [Follow]. It serves a live dashboard ([Plane.Handler]).
//
// The full model, limits, concurrency and stats are described below; see
// README.md for how to run it.
package controlplane
