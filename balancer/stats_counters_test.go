package balancer_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestStatsSumTheResults holds Stats to its doc, run by run: Recenters counts
// the runs that recentered, States counts runs per State and sums to Runs,
// Keyspace sums Result.KeyspaceMoved, and LastState and LastMaxMean are the
// last completed run's, left unchanged by a rejected Step.
func TestStatsSumTheResults(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	m := newModel(11, 100, func(int) float64 { return 0.85 + 0.3*r.Float64() }, 4)
	for i := range m.hosts {
		m.hosts[i].Weight = 3 // flat: a capacity reset first, then corrections
	}
	b := mustNew(t, balancer.Config{})
	var want balancer.Stats
	for run := range 30 {
		if run == 10 {
			m.extra[7] = 0.3 // a hot outlier joins the states seen
		}
		if run == 20 {
			// a new target: the next run recenters (SetConfig keeps the counters)
			require.NoError(t, b.SetConfig(balancer.Config{TargetMedian: 2}))
		}
		res, err := b.Step(t0.Add(time.Duration(run)*time.Minute), m.observe())
		require.NoError(t, err)
		m.apply(res)
		want.Runs++
		want.States[res.State]++
		want.Keyspace += res.KeyspaceMoved
		if res.Recentered {
			want.Recenters++
		}
		want.LastState, want.LastMaxMean = res.State, res.MaxMean
		_, err = b.Step(t0, []balancer.Host{{ID: "bad", Cores: 0}})
		require.Error(t, err)
		want.Rejected++
		st := b.Stats()
		assert.Equal(t, want.Runs, st.Runs)
		assert.Equal(t, want.States, st.States, "runs per state")
		assert.Equal(t, want.Keyspace, st.Keyspace, "run %d", run)
		assert.Equal(t, want.Recenters, st.Recenters, "run %d", run)
		assert.Equal(t, want.LastState, st.LastState, "run %d", run)
		assert.Equal(t, want.LastMaxMean, st.LastMaxMean, "run %d: the rejected Step changed the gauge", run)
		assert.Equal(t, want.Rejected, st.Rejected)
	}
	var sum uint64
	for _, n := range want.States {
		sum += n
	}
	assert.Equal(t, want.Runs, sum)
	// the run must exercise what it checks
	assert.Positive(t, want.Recenters)
	assert.Less(t, want.Recenters, want.Runs)
	assert.Greater(t, want.States[balancer.FlatInitial], uint64(0))
	assert.Less(t, want.States[balancer.FlatInitial], want.Runs)
	assert.Positive(t, want.Keyspace)
}
