package balancer_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

var t0 = time.Unix(1_700_000_000, 0)

func mustNew(t testing.TB, cfg balancer.Config) *balancer.Balancer {
	t.Helper()
	b, err := balancer.New(cfg)
	require.NoError(t, err)
	return b
}

// model is a tiny tier: cpu = share * demand / (cores * eff) + extra.
type model struct {
	hosts []balancer.Host
	eff   []float64
	extra []float64
	rng   *rand.Rand
	noise float64
}

func newModel(seed uint64, n int, effOf func(i int) float64, regions int) *model {
	m := &model{rng: rand.New(rand.NewPCG(seed, 1)), noise: 0.003}
	for i := range n {
		c := float64(26 + m.rng.IntN(101))
		e := effOf(i)
		m.hosts = append(m.hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: c, Weight: c / 76, Region: fmt.Sprint("r", i%regions)})
		m.eff = append(m.eff, e)
		m.extra = append(m.extra, 0)
	}
	return m
}

func (m *model) observe() []balancer.Host {
	var sumW, capEff float64
	for i, h := range m.hosts {
		sumW += h.Weight
		capEff += h.Cores * m.eff[i]
	}
	out := make([]balancer.Host, len(m.hosts))
	for i, h := range m.hosts {
		h.CPU = 0.55*capEff*h.Weight/sumW/(h.Cores*m.eff[i]) + m.extra[i] + m.noise*m.rng.NormFloat64()
		h.CPU = math.Max(h.CPU, 0.001)
		out[i] = h
	}
	return out
}

func (m *model) apply(res balancer.Result) {
	for i, d := range res.Hosts {
		m.hosts[i].Weight, m.hosts[i].New = d.New, false
	}
}

func (m *model) maxMean() float64 {
	hs := m.observe()
	var sum, mx float64
	for _, h := range hs {
		sum += h.CPU
		mx = math.Max(mx, h.CPU)
	}
	return mx / (sum / float64(len(hs)))
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		give balancer.Config
	}{
		{"gain above 1", balancer.Config{Gain: 1.5}},
		{"negative deadband", balancer.Config{Deadband: -0.1}},
		{"NaN step", balancer.Config{MaxStep: math.NaN()}},
		{"max weight below 1", balancer.Config{MaxWeight: 0.5}},
		{"deadband over hot load", balancer.Config{Deadband: 0.3, HotLoad: 0.2}},
		{"negative young runs", balancer.Config{YoungRuns: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := balancer.New(tt.give)
			require.ErrorIs(t, err, balancer.ErrInvalidConfig)
			assert.Contains(t, err.Error(), "balancer: ")
		})
	}
	b := mustNew(t, balancer.Config{})
	require.Error(t, b.SetConfig(balancer.Config{Gain: 2}))
	assert.Equal(t, 0.5, b.Config().Gain, "rejected SetConfig keeps the old config")
	require.NoError(t, b.SetConfig(balancer.Config{Gain: 0.7}))
	assert.Equal(t, 0.7, b.Config().Gain)
}

func TestStepRejectsBadInput(t *testing.T) {
	b := mustNew(t, balancer.Config{})
	_, err := b.Step(t0, nil)
	require.ErrorIs(t, err, balancer.ErrNoHosts)
	tests := []struct {
		name string
		give balancer.Host
		want string
	}{
		{"empty id", balancer.Host{Cores: 1}, "empty ID"},
		{"NaN cpu", balancer.Host{ID: "a", Cores: 1, CPU: math.NaN()}, "CPU"},
		{"zero cores", balancer.Host{ID: "a"}, "cores"},
		{"negative weight", balancer.Host{ID: "a", Cores: 1, Weight: -1}, "weight"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := b.Step(t0, []balancer.Host{tt.give})
			var he *balancer.HostError
			require.True(t, errors.As(err, &he), "%v", err)
			assert.Contains(t, he.Reason, tt.want)
		})
	}
	_, err = b.Step(t0, []balancer.Host{{ID: "a", Cores: 1}, {ID: "a", Cores: 1}})
	require.ErrorContains(t, err, "duplicate")
	assert.Equal(t, uint64(6), b.Stats().Rejected)
	assert.Zero(t, b.Stats().Runs)
}

// TestClassify builds one tier per state and checks the classifier names it.
func TestClassify(t *testing.T) {
	uniform := func(seed uint64) func(int) float64 {
		r := rand.New(rand.NewPCG(seed, 2))
		return func(int) float64 { return 0.9 + 0.2*r.Float64() }
	}
	tests := []struct {
		name  string
		give  func() *model
		setup func(m *model)
		want  balancer.State
	}{
		{"steady", func() *model { return newModel(1, 200, uniform(1), 4) }, nil, balancer.SteadyDrift},
		{"flat", func() *model { return newModel(2, 200, uniform(2), 4) }, func(m *model) {
			for i := range m.hosts {
				m.hosts[i].Weight = 1
			}
		}, balancer.FlatInitial},
		{"churn", func() *model { return newModel(3, 200, uniform(3), 4) }, func(m *model) {
			for i := range 4 {
				m.hosts[i].New, m.hosts[i].Weight = true, 0
			}
		}, balancer.TaskChurn},
		{"bimodal", func() *model {
			return newModel(4, 200, func(i int) float64 { return []float64{0.75, 1.15}[i%2] * (0.97 + 0.0003*float64(i%100)) }, 5)
		}, nil, balancer.BimodalLoad},
		{"hot", func() *model { return newModel(5, 200, uniform(5), 4) }, func(m *model) {
			for i := range 5 {
				m.extra[i*30] = 0.25
			}
		}, balancer.HotOutliers},
		{"regional", func() *model {
			u := uniform(6)
			return newModel(6, 200, func(i int) float64 {
				if i%4 == 0 {
					return 0.8 * u(i)
				}
				return u(i)
			}, 4)
		}, nil, balancer.RegionalSkew},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.give()
			// settle weights on the hidden efficiency first, as a running tier has
			for i := range m.hosts {
				m.hosts[i].Weight = m.hosts[i].Cores * m.eff[i] / 76
			}
			if tt.setup != nil {
				tt.setup(m)
			}
			res, err := mustNew(t, balancer.Config{}).Step(t0, m.observe())
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.State, res.Evidence)
			assert.NotEmpty(t, res.Evidence)
		})
	}
}

// TestConverges runs the model for 40 runs from capacity weights (three times the
// target median) and checks the guardrails: max/mean ends near 1, every weight stays
// in bounds, the median is on target (within RecenterBand) after every run.
func TestConverges(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	m := newModel(7, 200, func(int) float64 { return 0.85 + 0.3*r.Float64() }, 4)
	for i := range m.hosts {
		m.hosts[i].Weight *= 3 // capacity weights off target: the median is near 3
	}
	b := mustNew(t, balancer.Config{})
	for run := range 40 {
		res, err := b.Step(t0.Add(time.Duration(run)*time.Minute), m.observe())
		require.NoError(t, err)
		ws := make([]float64, 0, len(res.Hosts))
		for _, d := range res.Hosts {
			require.True(t, d.New >= 0.05 && d.New <= 20, "weight %v out of bounds", d.New)
			ws = append(ws, d.New)
		}
		// on target: TargetMedian 1 within the default RecenterBand 0.05
		slices.Sort(ws)
		med := (ws[len(ws)/2-1] + ws[len(ws)/2]) / 2 // 200 hosts
		require.True(t, med >= 0.95 && med <= 1.05, "run %d: median weight %v off target", run, med)
		m.apply(res)
	}
	m.noise = 0
	assert.Less(t, m.maxMean(), 1.05)
	st := b.Stats()
	assert.Equal(t, uint64(40), st.Runs)
	assert.Positive(t, st.Changed)
}

// TestThrottleAndDeadband: in a calm tier only MaxMoves hosts move per run, and hosts
// inside the deadband are held.
func TestThrottleAndDeadband(t *testing.T) {
	m := newModel(8, 100, func(i int) float64 { return 1 }, 1)
	for i := range m.hosts {
		m.hosts[i].Weight = m.hosts[i].Cores / 76
	}
	m.noise = 0
	hs := m.observe()
	for i := range 10 { // ten hosts 10% hot: outside the deadband, not outliers
		hs[i].CPU *= 1.10
	}
	b := mustNew(t, balancer.Config{MaxMoveShare: 0.03})
	res, err := b.Step(t0, hs)
	require.NoError(t, err)
	counts := map[balancer.Reason]int{}
	for _, d := range res.Hosts {
		counts[d.Reason]++
	}
	assert.Equal(t, balancer.SteadyDrift, res.State)
	assert.Equal(t, 3, counts[balancer.ReasonLowered], "throttle: 3%% of 100 hosts")
	assert.Equal(t, 7, counts[balancer.ReasonThrottled])
	assert.Equal(t, 90, counts[balancer.ReasonHeld])
	assert.Equal(t, 3, res.Changed)
	assert.Positive(t, res.KeyspaceMoved)
	assert.Less(t, res.KeyspaceMoved, 0.01)
}

// TestNewHostsStartFromCapacity: a new host gets cores * median weight per core *
// NewHostFactor.
func TestNewHostsStartFromCapacity(t *testing.T) {
	hs := []balancer.Host{
		{ID: "a", Cores: 50, Weight: 1, CPU: 0.5},
		{ID: "b", Cores: 50, Weight: 1, CPU: 0.5},
		{ID: "c", Cores: 100, Weight: 2, CPU: 0.5},
		{ID: "new", Cores: 100, New: true},
	}
	res, err := mustNew(t, balancer.Config{NewHostFactor: 1, RecenterBand: 1}).Step(t0, hs)
	require.NoError(t, err)
	d := res.Hosts[3]
	assert.Equal(t, balancer.ReasonCapacity, d.Reason)
	assert.InDelta(t, 2.0, d.New, 1e-9)
	assert.Equal(t, balancer.TaskChurn, res.State)
}

// TestRecenter: weights far from the target median are rescaled without changing
// shares.
func TestRecenter(t *testing.T) {
	hs := []balancer.Host{
		{ID: "a", Cores: 10, Weight: 5, CPU: 0.5},
		{ID: "b", Cores: 10, Weight: 5, CPU: 0.5},
		{ID: "c", Cores: 20, Weight: 10, CPU: 0.5},
	}
	res, err := mustNew(t, balancer.Config{}).Step(t0, hs)
	require.NoError(t, err)
	assert.True(t, res.Recentered)
	assert.InDelta(t, 1.0, res.Hosts[0].New, 1e-9)
	assert.InDelta(t, 2.0, res.Hosts[2].New, 1e-9)
	assert.InDelta(t, 0, res.KeyspaceMoved, 1e-12)
}

// TestNoSignalKept: a known host without CPU keeps its weight.
func TestNoSignalKept(t *testing.T) {
	hs := []balancer.Host{{ID: "a", Cores: 10, Weight: 1, CPU: 0.5}, {ID: "b", Cores: 10, Weight: 1}}
	res, err := mustNew(t, balancer.Config{}).Step(t0, hs)
	require.NoError(t, err)
	assert.Equal(t, balancer.ReasonNoSignal, res.Hosts[1].Reason)
	assert.Equal(t, 1.0, res.Hosts[1].New)
}

// TestHotOutliersAfterFlatStart: hosts that looked hot while the weights were flat
// are not remembered as outliers; real outliers later are classified as such and
// corrected.
func TestHotOutliersAfterFlatStart(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	m := newModel(11, 200, func(int) float64 { return 0.85 + 0.3*r.Float64() }, 4)
	for i := range m.hosts {
		m.hosts[i].Weight = 1
	}
	b := mustNew(t, balancer.Config{})
	for run := range 30 {
		if run == 12 {
			for i := range 6 {
				m.extra[i*33] = 0.25
			}
		}
		res, err := b.Step(t0, m.observe())
		require.NoError(t, err)
		switch {
		case run == 0:
			require.Equal(t, balancer.FlatInitial, res.State)
		case run >= 3 && run < 12:
			require.Equal(t, balancer.SteadyDrift, res.State, "run %d: %s", run, res.Evidence)
		case run >= 12:
			require.Equal(t, balancer.HotOutliers, res.State, "run %d: %s", run, res.Evidence)
		}
		m.apply(res)
	}
	m.noise = 0
	assert.Less(t, m.maxMean(), 1.06)
}

// TestConcurrentUse: Step, SetConfig and Stats from several goroutines (run under
// -race); every result keeps its invariants and every run is counted.
func TestConcurrentUse(t *testing.T) {
	b := mustNew(t, balancer.Config{})
	done := make(chan struct{})
	for g := range 3 {
		go func() {
			defer func() { done <- struct{}{} }()
			m := newModel(uint64(20+g), 100, func(i int) float64 { return 0.9 + 0.002*float64(i) }, 4)
			for i := range 100 {
				res, err := b.Step(t0, m.observe())
				if err != nil {
					t.Error(err)
					return
				}
				for _, d := range res.Hosts {
					if d.New < 0.05 || d.New > 20 || math.IsNaN(d.New) {
						t.Errorf("weight %v out of bounds", d.New)
						return
					}
				}
				m.apply(res)
				_ = b.Stats()
				if i%25 == 0 {
					if err := b.SetConfig(balancer.Config{Gain: 0.4 + 0.1*float64(g)}); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	for range 3 {
		<-done
	}
	assert.Equal(t, uint64(300), b.Stats().Runs)
}
