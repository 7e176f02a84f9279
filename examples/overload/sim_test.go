package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
	"github.com/tierkit/tierkit/shed"
)

// *aimd.Limiter is a shed capacity source (neither package imports the other),
// and has the admission shape the reference gateway declares.
var (
	_ shed.Capacity = (*aimd.Limiter)(nil)
	_ shed.Capacity = shed.Fixed(0)
	_ admitter      = (*aimd.Limiter)(nil)
)

// admitter is the admission interface an aimd.Limiter offers a gateway.
type admitter interface {
	Acquire(ctx context.Context) (done func(ok bool), err error)
}

// simDuration is the virtual time of the CI run; TIERKIT_LONG=1 runs the full 20 s
// of the README.
func simDuration() time.Duration {
	if os.Getenv("TIERKIT_LONG") == "1" {
		return 20 * time.Second
	}
	return 2 * time.Second
}

// TestOverloadTargets runs the experiment twice, checks the two runs agree bit
// for bit, and checks the targets for shed in both variants.
func TestOverloadTargets(t *testing.T) {
	d := simDuration()
	first := experiment(d)
	second := experiment(d)
	require.Equal(t, resultHash(first), resultHash(second), "the simulation is deterministic")
	for i, v := range first {
		// shed as configured in the table (first row), and with the real
		// mode's options (last row): the same targets. The decisions' cost
		// is timed on the wall clock, which a busy machine inflates (a
		// preempted decision counts its wait): the cheaper of the two runs
		// is checked.
		last := len(v.Results) - 1
		checkShedTargets(t, v, v.Results[0], "shed (DRR by cost)", second[i].Results[0].cpuShare())
		checkShedTargets(t, v, v.Results[last], "shed, real mode's options", second[i].Results[last].cpuShare())
	}
	// The global FIFO baseline fails isolation in both variants: the comparison
	// means something.
	for _, v := range first {
		assert.Greater(t, v.Results[1].NormalRejected, 100, "%s: FIFO", v.Name)
	}
}

// checkShedTargets checks o against the targets; its shedder CPU is
// the smaller of o's and otherCPU, another run's.
func checkShedTargets(t *testing.T, v variant, o outcome, name string, otherCPU float64) {
	t.Helper()
	require.Equal(t, name, o.Policy)
	assert.Zero(t, o.NormalRejected, "%s: normal tenants with a rejection", v.Name)
	assert.GreaterOrEqual(t, o.normalInDeadline(), 99.9, "%s: normal requests within deadline", v.Name)
	assert.GreaterOrEqual(t, o.goodput(), 98.0, "%s: goodput", v.Name)
	assert.Equal(t, v.Scenario.Noisy, o.NoisyRejected, "%s: every noisy tenant sheds", v.Name)
	if !raceEnabled { // the race detector slows the measured decisions ~10x
		assert.LessOrEqual(t, min(o.cpuShare(), otherCPU), 3.0, "%s: shedder CPU (the cheaper of two runs)", v.Name)
	}
	// Every offered request is accounted for.
	for k := range 2 {
		assert.Equal(t, o.Offered[k], o.Served[k]+o.Rejected[k], "%s: class %d", v.Name, k)
	}
	t.Logf("%s: %s: %d/%d normal tenants rejected, %.3f%% in deadline, goodput %.2f%%, %.0f ns/decision",
		v.Name, name, o.NormalRejected, v.Scenario.Normal, o.normalInDeadline(), o.goodput(), o.nsPerDecision())
}

func TestArrivalsMatchScenario(t *testing.T) {
	s := defaultScenario(10*time.Second, 1)
	reqs, names := s.arrivals()
	require.Len(t, names, 1350)
	var normal, noisy float64
	for _, r := range reqs {
		if r.noisy {
			noisy += float64(r.cost)
		} else {
			normal += float64(r.cost)
		}
	}
	capacity := s.capacity() * s.Duration.Seconds()
	assert.InDelta(t, 0.75, normal/capacity, 0.02)
	assert.InDelta(t, 0.60, noisy/capacity, 0.02)
}

func TestPlotAndTable(t *testing.T) {
	res := experiment(200 * time.Millisecond)
	path := filepath.Join(t.TempDir(), "o.svg")
	require.NoError(t, plotResults(path, res))
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Positive(t, st.Size())
	var b stringsBuilder
	printTable(&b, res)
	assert.Contains(t, b.String(), "APF shuffle-shard 128/8")
}

type stringsBuilder struct{ b []byte }

func (s *stringsBuilder) Write(p []byte) (int, error) { s.b = append(s.b, p...); return len(p), nil }
func (s *stringsBuilder) String() string              { return string(s.b) }
