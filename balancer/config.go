package balancer

import (
	"fmt"
	"math"
)

// Config holds the balancer's tunables. A zero field means the documented default;
// [Balancer.SetConfig] swaps a validated Config at runtime.
type Config struct {
	// TargetMedian is the weight the distribution is recentered on, so weights never
	// drift toward zero or infinity. Default 1.
	TargetMedian float64
	// RecenterBand is how far (relative) the median weight may wander from
	// TargetMedian before every weight is rescaled. Rescaling moves no keys (shares are
	// unchanged) but touches every host's published weight, so it is done rarely.
	// Default 0.05. Zero takes the default, so the band cannot be 0: to recenter
	// whenever the median moves at all, set a tiny band such as 1e-12. The band is
	// closed: a median of exactly (1+RecenterBand) or (1-RecenterBand) times
	// TargetMedian is inside it and rescales nothing.
	RecenterBand float64
	// Gain is the damping of the steady policy: a host at normalized load L has its
	// weight multiplied by L^-Gain (1 would correct the whole error in one run).
	// Default 0.5.
	Gain float64
	// MaxStep clamps one run's relative weight change of a host under the steady
	// policy to [1/(1+MaxStep), 1+MaxStep]. Default 0.05.
	MaxStep float64
	// Deadband is the normalized-load band around 1 inside which a host is left alone,
	// so measurement noise does not move keys. It should exceed the CPU noise relative
	// to the mean, times about 3. Default 0.03. Zero takes the default, so the
	// deadband cannot be 0: for none, set a tiny band such as 1e-12. The band is
	// closed: a load of exactly 1+Deadband or 1-Deadband is inside it.
	Deadband float64
	// MaxMoveShare is the change throttle of the steady policy: at most this share of
	// the hosts (the most imbalanced first, at least one) change weight per run.
	// Default 0.02.
	MaxMoveShare float64
	// WideShare is the share of hosts outside the deadband above which the tier is
	// unsettled (a shock, a reset): the throttle opens, the gain goes to 1 and the
	// clamp to WideMaxStep, whatever the state. Default 0.25.
	WideShare float64
	// WideMaxStep is the clamp used when the tier is unsettled, for hot outliers and for
	// young hosts. Default 0.5.
	WideMaxStep float64
	// NewHostFactor scales the capacity-based weight of a new host (cores times the
	// tier's median weight per core). Below 1 starts a host of unknown efficiency cool
	// rather than hot. Default 0.85.
	NewHostFactor float64
	// YoungRuns is how many runs after joining a host is corrected at full gain and
	// outside the throttle (the run it joins in is not one of them, also for a host
	// that joins with a weight and is read in that run). Zero means the default, 3, so it cannot be turned
	// off; 1 is the least.
	YoungRuns int
	// ChurnWindow is how many runs a join counts toward task churn. Default 12.
	ChurnWindow int
	// ChurnShare is the share of hosts that joined within ChurnWindow runs above which
	// the tier is in task churn. Default 0.01.
	ChurnShare float64
	// HotLoad is the normalized load above which a host is a hot outlier. Default 0.25.
	HotLoad float64
	// HotEfficiency is the relative efficiency (weight per core per CPU, against the
	// median) below which a host is a hot outlier. Default 0.65.
	HotEfficiency float64
	// HotHold is how many runs a host stays flagged hot after it last met a hot
	// criterion. A hot host's correction undershoots (its extra load is not
	// proportional to its weight), which hides it from both criteria for a few runs;
	// the hold keeps its policy and the classification stable meanwhile. Zero means
	// the default, 20; 1 is the least.
	HotHold int
	// HotMaxShare is the largest share of hosts still called outliers. Default 0.10.
	HotMaxShare float64
	// RegionSpread is the spread of per-region median efficiency above which the tier
	// has regional skew (with RegionEta). Default 0.10.
	RegionSpread float64
	// RegionEta is the minimum share of efficiency variance explained by region for
	// regional skew. Default 0.25.
	RegionEta float64
	// BimodalSeparation is the distance between the two efficiency clusters, in pooled
	// within-cluster standard deviations, above which the tier is bimodal. Default 5.
	BimodalSeparation float64
	// BimodalMinShare is the smallest share of hosts in each cluster. Default 0.15.
	BimodalMinShare float64
	// MinWeight and MaxWeight bound every weight, relative to TargetMedian.
	// Defaults 0.05 and 20.
	MinWeight, MaxWeight float64
}

// withDefaults returns c with zero fields replaced by their defaults.
func (c Config) withDefaults() Config {
	def := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	def(&c.TargetMedian, 1)
	def(&c.RecenterBand, 0.05)
	def(&c.Gain, 0.5)
	def(&c.MaxStep, 0.05)
	def(&c.Deadband, 0.03)
	def(&c.MaxMoveShare, 0.02)
	def(&c.WideShare, 0.25)
	def(&c.WideMaxStep, 0.5)
	def(&c.NewHostFactor, 0.85)
	def(&c.ChurnShare, 0.01)
	def(&c.HotLoad, 0.25)
	def(&c.HotEfficiency, 0.65)
	def(&c.HotMaxShare, 0.10)
	def(&c.RegionSpread, 0.10)
	def(&c.RegionEta, 0.25)
	def(&c.BimodalSeparation, 5)
	def(&c.BimodalMinShare, 0.15)
	def(&c.MinWeight, 0.05)
	def(&c.MaxWeight, 20)
	if c.YoungRuns == 0 {
		c.YoungRuns = 3
	}
	if c.HotHold == 0 {
		c.HotHold = 20
	}
	if c.ChurnWindow == 0 {
		c.ChurnWindow = 12
	}
	return c
}

// validate checks a Config after defaults, returning an error wrapping
// ErrInvalidConfig.
func (c Config) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("balancer: "+format+": %w", append(args, ErrInvalidConfig)...)
	}
	for _, f := range []struct {
		name   string
		v      float64
		lo, hi float64
	}{
		{"TargetMedian", c.TargetMedian, 1e-9, math.MaxFloat64},
		{"RecenterBand", c.RecenterBand, 0, 1},
		{"Gain", c.Gain, 1e-9, 1},
		{"MaxStep", c.MaxStep, 1e-9, 10},
		{"Deadband", c.Deadband, 0, 1},
		{"MaxMoveShare", c.MaxMoveShare, 1e-9, 1},
		{"WideShare", c.WideShare, 1e-9, 1},
		{"WideMaxStep", c.WideMaxStep, 1e-9, 10},
		{"NewHostFactor", c.NewHostFactor, 1e-9, 10},
		{"ChurnShare", c.ChurnShare, 1e-9, 1},
		{"HotLoad", c.HotLoad, 1e-9, 10},
		{"HotEfficiency", c.HotEfficiency, 1e-9, 1},
		{"HotMaxShare", c.HotMaxShare, 1e-9, 1},
		{"RegionSpread", c.RegionSpread, 1e-9, 10},
		{"RegionEta", c.RegionEta, 1e-9, 1},
		{"BimodalSeparation", c.BimodalSeparation, 1e-9, 1e9},
		{"BimodalMinShare", c.BimodalMinShare, 1e-9, 0.5},
		{"MinWeight", c.MinWeight, 1e-9, 1},
		{"MaxWeight", c.MaxWeight, 1, math.MaxFloat64},
	} {
		if math.IsNaN(f.v) || f.v < f.lo || f.v > f.hi {
			return bad("%s = %v outside [%v, %v]", f.name, f.v, f.lo, f.hi)
		}
	}
	if c.YoungRuns < 0 || c.ChurnWindow < 1 || c.HotHold < 0 {
		return bad("YoungRuns = %d, HotHold = %d and ChurnWindow = %d must be >= 1 (0 for the default)",
			c.YoungRuns, c.HotHold, c.ChurnWindow)
	}
	if c.Deadband >= c.HotLoad {
		return bad("Deadband %v must be below HotLoad %v", c.Deadband, c.HotLoad)
	}
	return nil
}
