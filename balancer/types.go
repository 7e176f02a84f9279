package balancer

import "time"

// Host is one host's report for a run.
type Host struct {
	// ID names the host; unique within a run.
	ID string
	// CPU is the host's recent CPU utilization as a fraction (0.55 = 55%). Zero means no
	// signal yet (the host keeps its weight, or gets a capacity weight if new).
	CPU float64
	// Cores is the host's capacity (cores, or any proportional unit); > 0.
	Cores float64
	// Weight is the host's current weight; 0 marks a host that has none yet.
	Weight float64
	// Region is the host's region, used to detect regional skew; may be empty.
	Region string
	// New marks a host that just joined (replaced task, fresh machine): it gets a
	// capacity-scaled weight instead of a CPU correction.
	New bool
}

// State is the tier state the classifier sees in a run. The zero State is not used.
type State uint8

// States, in the order the classifier checks them (first match wins). Structural
// explanations (region, clusters) come before per-host exceptions: the hottest hosts
// of a bimodal tier are the tail of a cluster, not outliers.
const (
	// FlatInitial: every weight is equal while capacities differ (a fresh tier, or
	// weights lost), and the hosts' CPU does not show the equal weights balance
	// the tier (it follows the cores, or more than WideShare of the hosts are
	// outside the deadband, or fewer than 2 hosts have a signal): hosts that serve
	// the same rate whatever their cores keep their equal weights. Policy: reset
	// every host to a capacity-scaled weight at once.
	FlatInitial State = iota + 1
	// TaskChurn: hosts joined recently (more than ChurnShare of the tier within
	// ChurnWindow runs). Policy: capacity weights for new hosts, full-gain unthrottled
	// correction for young ones, the steady policy for the rest.
	TaskChurn
	// RegionalSkew: hosts of one region are systematically heavier or lighter (the
	// per-region median efficiency spreads by more than RegionSpread and region
	// explains at least RegionEta of the variance). Policy: one multiplicative factor per
	// region first (for a region whose median load is off 1 by more than half the
	// Deadband), then the steady per-host policy.
	RegionalSkew
	// BimodalLoad: hosts fall into two clusters of efficiency (hardware generations,
	// stacking densities). Policy: higher gain (0.8), wider clamp and a throttle opened
	// to 25% of hosts, so the whole cluster moves together.
	BimodalLoad
	// HotOutliers: a few hosts (at most HotMaxShare) run far above the tier (load above
	// 1+HotLoad) or need far less weight than their cores suggest. Policy: correct the
	// outliers at full gain outside the throttle, the steady policy for the rest.
	HotOutliers
	// SteadyDrift: none of the above: slow drift around balance. Policy: damped,
	// clamped, deadbanded, throttled correction of the most imbalanced hosts.
	SteadyDrift
)

var stateNames = [...]string{"", "flat-initial", "task-churn", "regional-skew", "bimodal-load", "hot-outliers", "steady-drift"}

// String returns the state's short name.
func (s State) String() string {
	if s > 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "unknown"
}

// NumStates is the number of states (for arrays indexed by State).
const NumStates = int(SteadyDrift) + 1

// Reason says why a host's weight changed or did not.
type Reason uint8

// Reasons.
const (
	// ReasonHeld: the weight is unchanged (but for a recentering). The load is within
	// the deadband, or, under the regional policy, the region's factor and the host's
	// own correction were clamped to opposite ends and cancel out (a hot host of a
	// cold region in an unsettled run: Clamped and Region are set and Load is outside
	// the deadband).
	ReasonHeld      Reason = iota + 1
	ReasonThrottled        // outside the deadband, but not among the most imbalanced this run
	ReasonLowered          // load above the tier: weight lowered
	ReasonRaised           // load below the tier: weight raised
	ReasonCapacity         // new host or flat reset: capacity-scaled weight
	ReasonNoSignal         // no CPU signal: unchanged
	// ReasonBounded: MinWeight or MaxWeight set the weight. Either the load called for
	// a raise or a cut and the bound cut it short (a host already at the bound keeps
	// its weight), or a new host's (or a flat reset's) capacity weight fell outside
	// the bounds and is moved onto the bound, or the host was left alone (held,
	// throttled, no signal) with a weight outside the bounds (SetConfig narrowed
	// them, or recentering scaled it past one) and is moved onto the bound.
	ReasonBounded
)

var reasonNames = [...]string{"", "held", "throttled", "lowered", "raised", "capacity", "no-signal", "bounded"}

// String returns the reason's short name.
func (r Reason) String() string {
	if r > 0 && int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "unknown"
}

// Decision is the outcome for one host.
type Decision struct {
	ID     string
	Old    float64 // weight before the run (0 for a new host)
	New    float64 // weight to publish
	Reason Reason
	// Load is the host's CPU over the tier's mean CPU (1 = average). It is 0 for a host
	// the run does not read: one without a CPU signal, without a weight, or marked New
	// (whatever CPU it reports).
	Load float64
	// Clamped reports whether the change was cut by a per-run clamp: the host's own
	// step's (MaxStep, or WideMaxStep) or, under the regional policy, its region
	// factor's (WideMaxStep).
	Clamped bool
	// Region reports whether a regional-skew factor contributed to the change.
	Region bool
}

// Policy is the set of knobs a run applied, after the state and the unsettled check.
type Policy struct {
	Gain     float64 // exponent of the correction L^-Gain
	MaxStep  float64 // per-run relative clamp
	MaxMoves int     // change throttle, hosts per run
	Wide     bool    // the tier was unsettled: throttle open, gain 1
	Regional bool    // per-region factors applied
}

// Result is the output of one run: new weights and the explanation.
type Result struct {
	Now   time.Time
	Run   uint64 // 1 for the first run
	State State
	// Evidence is a one-line human-readable account of the features behind State.
	Evidence string
	Policy   Policy
	// Hosts has one Decision per input host, in input order.
	Hosts []Decision
	// Changed is the number of hosts whose own weight the run moved: whose New
	// differs from Old times the recenter factor (1 unless Recentered). It counts
	// moves, not shares: moving one host changes every host's share but counts 1,
	// and a recenter alone rescales every weight, changes no share and counts 0.
	// A host that joins with Old 0 counts.
	Changed int
	// KeyspaceMoved is the share of the keyspace whose owner changes with the new
	// weights under ideal weighted consistent hashing: half the sum of the absolute
	// changes of each host's weight share (new hosts' shares included), and 1 when
	// no input host had a weight (every key takes its first owner). Hosts absent
	// from the input are not seen: the keys a removed host leaves are not counted.
	KeyspaceMoved float64
	// MaxMean is the max over mean CPU (before the run) of the hosts the run reads:
	// those with a CPU signal and a weight, not marked New. A new or weightless host's
	// CPU is in neither the max nor the mean.
	MaxMean float64
	// Recentered reports whether every weight was rescaled onto TargetMedian.
	Recentered bool
}
