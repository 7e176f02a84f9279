package main

import (
	"runtime"
	"syscall"
	"time"
)

// processStart is when this process started serving, for the uptime the control
// plane divides CPU by.
var processStart = time.Now()

// hostState is the "host" entry of GET /control/state: what a control plane
// (examples/controlplane) polls to weigh this gateway against its peers. The JSON
// field names are the contract with the plane.
type hostState struct {
	// CPUSeconds is the process's CPU time, user plus system, cumulative: the plane
	// turns it into utilization as d(CPUSeconds)/d(UptimeSeconds)/cores.
	CPUSeconds float64 `json:"cpu_seconds"`
	// UptimeSeconds is the wall time since the process started, on its own clock,
	// so the plane's poll jitter does not enter the utilization.
	UptimeSeconds float64 `json:"uptime_seconds"`
	GOMAXPROCS    int     `json:"gomaxprocs"`
	InFlight      int     `json:"in_flight"` // admissions held by the limiter: a pipelined run or an MGET holds one however many commands it carries
	Commands      uint64  `json:"commands"`
	Errors        uint64  `json:"errors"`
	Shed          uint64  `json:"shed"`       // rejected by the shedder
	Overloaded    uint64  `json:"overloaded"` // commands refused OVERLOADED: the batcher's in-flight cap, a shard's share of it, the limiter, the memory guard
	Throttled     uint64  `json:"throttled"`  // over a backend quota
	// Tenants holds each tenant's counters (cumulative).
	Tenants map[string]tenantHostState `json:"tenants"`
}

type tenantHostState struct {
	Requests  uint64 `json:"requests"`
	Shed      uint64 `json:"shed"`
	Throttled uint64 `json:"throttled"`
}

// hostSnapshot reads the process and gateway counters for the "host" state.
func (g *Gateway) hostSnapshot() hostState {
	s := hostState{
		CPUSeconds:    processCPUSeconds(),
		UptimeSeconds: time.Since(processStart).Seconds(),
		GOMAXPROCS:    runtime.GOMAXPROCS(0),
		InFlight:      g.limiter.Stats().InFlight,
		Commands:      g.n.allCommands(),
		Errors:        g.n.errors.Load(),
		Shed:          g.n.shed.Load(),
		Overloaded:    g.n.overloaded.Load(),
		Throttled:     g.n.throttled.Load(),
		Tenants:       make(map[string]tenantHostState, len(g.tenants)),
	}
	for name, t := range g.tenants {
		s.Tenants[name] = tenantHostState{Requests: t.requests.Load(), Shed: t.shed.Load(), Throttled: t.throttled.Load()}
	}
	return s
}

// processCPUSeconds is the process's user plus system CPU time (0 if the OS does
// not report it).
func processCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}
