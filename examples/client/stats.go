package client

// Stats is a snapshot of a Client's counters. A request is one command sent
// for one key or one MGet group; its retry is counted in Retries, not again in
// Gateway or Direct.
type Stats struct {
	Gateway uint64 // requests sent on the gateway path
	Direct  uint64 // requests sent straight to a backend shard
	Retries uint64 // requests retried on the next host after a host failure
	// Failures counts calls that returned an error: a request after its retry,
	// or a call that failed before sending (ErrNoRoutes, ErrNoHost, ErrClosed),
	// counted once even for an MGet of many keys. Not-found is not one, nor
	// is a Set refused for its ttl (ErrBadTTL): the call's argument, checked
	// before routing.
	Failures uint64
	Skipped  uint64 // keys whose ring owner was draining or ejected, sent to the next host up front (an MGet counts each of its keys)
	Swaps    uint64 // routes published with SetRoutes
	// Hosts counts attempts (first tries and retries) per host address, for the
	// hosts with an open pool.
	Hosts map[string]uint64
	// Conns counts the open connections per host address (at most
	// Config.PoolSize each): the client's fan-out.
	Conns map[string]int
	// InFlight counts the attempts per host address that were sent (or wait
	// for one of its connections) and have no outcome yet, for the hosts with
	// an open pool: those a host that dies now fails, and the client retries.
	InFlight map[string]int
}

// Stats returns a snapshot of c's counters.
func (c *Client) Stats() Stats {
	s := Stats{
		Gateway:  c.gateway.Load(),
		Direct:   c.direct.Load(),
		Retries:  c.retries.Load(),
		Failures: c.failures.Load(),
		Skipped:  c.skipped.Load(),
		Swaps:    c.swaps.Load(),
		Hosts:    map[string]uint64{},
		Conns:    map[string]int{},
		InFlight: map[string]int{},
	}
	for addr, h := range *c.pools.Load() {
		s.Hosts[addr] = h.requests.Load()
		s.Conns[addr] = int(h.rc.PoolStats().TotalConns)
		s.InFlight[addr] = int(h.inFlight.Load())
	}
	return s
}
