package balancer

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// Balancer computes host weights for one tier, one run at a time. It remembers which
// hosts it has seen and when they joined (for task churn and young-host handling) and
// which were hot outliers within Config.HotHold runs, and nothing else: every run is
// a pure function of the input, that memory and the Config. A host left out of a run
// (a lost load report) is remembered for Config.ChurnWindow runs: back within them it
// has not joined anew, unless marked [Host.New]; back later it joins again. The
// window is the one in force: narrowed by SetConfig, it forgets at once; widened, it
// does not bring back a host already forgotten. Its hot flag lasts its HotHold runs
// whether it reports or not (a host marked New drops it).
//
// It is safe for concurrent use (a mutex serializes runs), but runs are meant to be
// called from one control loop on a fixed cadence. It starts no goroutine.
type Balancer struct {
	mu sync.Mutex
	// protected by mu
	cfg     Config
	run     uint64
	members map[string]member // host ID -> when it joined and was last seen
	lastHot map[string]uint64 // host ID -> last run it met a hot criterion
	stats   Stats
}

// Stats is a snapshot of a Balancer's counters and last-run gauges. Every
// counter is monotonic from New and never reset (SetConfig keeps them);
// LastState and LastMaxMean are gauges of the last completed run, left
// unchanged by a rejected one, and zero (LastState 0 is no State) before the
// first.
type Stats struct {
	Runs    uint64 // completed runs (Step calls that returned a Result)
	Changed uint64 // hosts moved, summed over runs (see [Result.Changed])
	// Throttled counts host-runs whose Reason is ReasonThrottled: outside the
	// deadband and left alone by the throttle. A throttled host whose weight was
	// outside the bounds is moved onto the bound and reports ReasonBounded: it is
	// not counted here (nor does any counter count bound hits).
	Throttled uint64
	// NewHosts counts host-runs given a capacity-scaled weight: a host marked New or
	// weighing 0 (once per run it is so), and every host of a FlatInitial run, whose
	// Reason is ReasonCapacity, or ReasonBounded when MinWeight or MaxWeight then set
	// the weight. It is not the number of hosts that joined.
	NewHosts  uint64
	Recenters uint64 // runs that rescaled every weight onto the target median
	Rejected  uint64 // Step calls rejected for bad input (not counted in Runs)
	LastState State  // gauge: the State of the last completed run
	// States counts runs per classified state, indexed by State (index 0,
	// no State, stays 0); the counts sum to Runs.
	States [NumStates]uint64
	// Keyspace is the sum over runs of Result.KeyspaceMoved, in shares of the
	// keyspace (1 = every key once): monotonic, it can exceed 1.
	Keyspace    float64
	LastMaxMean float64 // gauge: Result.MaxMean of the last completed run
}

// New returns a Balancer with cfg (zero fields take their defaults), or an error
// wrapping [ErrInvalidConfig].
func New(cfg Config) (*Balancer, error) {
	b := &Balancer{members: make(map[string]member), lastHot: make(map[string]uint64)}
	if err := b.SetConfig(cfg); err != nil {
		return nil, err
	}
	return b, nil
}

// SetConfig validates cfg (after defaults) and uses it from the next run on. On error
// the previous Config stays in force.
func (b *Balancer) SetConfig(cfg Config) error {
	c := cfg.withDefaults()
	if err := c.validate(); err != nil {
		return err
	}
	b.mu.Lock()
	b.cfg = c
	b.mu.Unlock()
	return nil
}

// Config returns the Config in force, with defaults filled in.
func (b *Balancer) Config() Config {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cfg
}

// Stats returns a snapshot of b's counters.
func (b *Balancer) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stats
}

// Step runs the balancer once at now over hosts and returns the new weights with the
// classification, the policy applied and a reason per host. hosts is not modified.
//
// Errors: [ErrNoHosts] for an empty list, a [*HostError] for an unusable record; in
// both cases nothing changes and the caller should keep the published weights.
func (b *Balancer) Step(now time.Time, hosts []Host) (Result, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(hosts) == 0 {
		b.stats.Rejected++
		return Result{}, ErrNoHosts
	}
	if err := checkHosts(hosts); err != nil {
		b.stats.Rejected++
		return Result{}, err
	}
	b.run++
	age := b.ages(hosts)
	v := newView(b.cfg, hosts, age, b.wasHot(hosts))
	state, evidence := classify(b.cfg, v)
	b.markHot(v, state == HotOutliers)
	res := apply(b.cfg, v, state)
	res.Now, res.Run, res.State, res.Evidence = now, b.run, state, evidence
	b.record(res, hosts)
	return res, nil
}

// member is the join memory of one host.
type member struct {
	joined uint64 // run it joined (0: present at the first run)
	seen   uint64 // last run it was in the input
}

// ages updates the join memory and returns each host's runs since joining
// (math.MaxInt for hosts part of the tier at the first run: there with a weight
// and not marked New; one without a weight or marked New joins in it). A host
// absent from a run is forgotten only after ChurnWindow runs without it: one that
// misses a report has not joined when it reports again.
func (b *Balancer) ages(hosts []Host) []int {
	age := make([]int, len(hosts))
	for i, h := range hosts {
		// a host marked New joins now, also under an ID seen before (a
		// replaced task that kept its ID): its memory starts over, and the
		// previous task's hot flag is not its own
		m, seen := b.members[h.ID]
		// away more runs than the ChurnWindow in force (SetConfig may have
		// narrowed it since the memory was purged): forgotten, it joins again
		seen = seen && b.run-m.seen-1 <= uint64(b.cfg.ChurnWindow)
		if h.New {
			delete(b.lastHot, h.ID)
		}
		if !seen || h.New {
			m.joined = b.run
			if b.run == 1 && !h.New && h.Weight > 0 {
				m.joined = 0 // part of the tier before the balancer started
			}
		}
		m.seen = b.run
		b.members[h.ID] = m
		if m.joined == 0 {
			age[i] = math.MaxInt
		} else {
			age[i] = int(b.run - m.joined)
		}
	}
	for id, m := range b.members {
		if b.run-m.seen > uint64(b.cfg.ChurnWindow) {
			delete(b.members, id)
		}
	}
	return age
}

// wasHot reports, per host, whether it met a hot criterion within HotHold runs.
func (b *Balancer) wasHot(hosts []Host) []bool {
	out := make([]bool, len(hosts))
	for i, h := range hosts {
		if last, ok := b.lastHot[h.ID]; ok && b.run-last <= uint64(b.cfg.HotHold) {
			out[i] = true
		}
	}
	return out
}

// markHot remembers the hosts hot in this run when the tier was classified as having
// hot outliers (a flat or shocked tier has many "hot" hosts that are not outliers),
// and forgets those whose hold expired. A host absent from a run keeps its flag
// until then, as it keeps its join memory: one that misses a report is still the
// same hot host when it reports again (a replaced task, marked New, drops it in
// ages).
func (b *Balancer) markHot(v *view, outliers bool) {
	for i, h := range v.hosts {
		if outliers && hotNow(b.cfg, v, i) {
			b.lastHot[h.ID] = b.run
		}
	}
	for id, last := range b.lastHot {
		if b.run-last > uint64(b.cfg.HotHold) {
			delete(b.lastHot, id)
		}
	}
}

// record counts res in the stats; hosts is the run's input.
func (b *Balancer) record(res Result, hosts []Host) {
	s := &b.stats
	s.Runs++
	s.LastState = res.State
	s.States[res.State]++
	s.Keyspace += res.KeyspaceMoved
	s.LastMaxMean = res.MaxMean
	if res.Recentered {
		s.Recenters++
	}
	for i, d := range res.Hosts {
		if d.Reason == ReasonThrottled {
			s.Throttled++
		}
		// by the input, not the reason: a capacity weight a bound set reports
		// ReasonBounded and is still a capacity reset
		if res.State == FlatInitial || needsCapacity(hosts[i]) {
			s.NewHosts++
		}
	}
	s.Changed += uint64(res.Changed)
}

func checkHosts(hosts []Host) error {
	seen := make(map[string]struct{}, len(hosts))
	for i, h := range hosts {
		bad := func(why string, args ...any) error {
			return &HostError{ID: h.ID, Index: i, Reason: fmt.Sprintf(why, args...)}
		}
		switch {
		case h.ID == "":
			return bad("empty ID")
		case math.IsNaN(h.CPU) || math.IsInf(h.CPU, 0) || h.CPU < 0:
			return bad("CPU %v not a fraction >= 0", h.CPU)
		case math.IsNaN(h.Cores) || math.IsInf(h.Cores, 0) || h.Cores <= 0:
			return bad("cores %v not > 0", h.Cores)
		case math.IsNaN(h.Weight) || math.IsInf(h.Weight, 0) || h.Weight < 0:
			return bad("weight %v not >= 0", h.Weight)
		}
		if _, dup := seen[h.ID]; dup {
			return bad("duplicate ID")
		}
		seen[h.ID] = struct{}{}
	}
	return nil
}
