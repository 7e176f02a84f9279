package aimd_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestMaxOfPartialFailureStillCuts: a MaxOf whose one component fails
// returned its error with the others' maximum, and the Limiter dropped that
// maximum: a CPU signal that failed at every step (a cgroup file gone
// unreadable) froze the loop while the scheduler latency beside it read
// twice its target, and the overload went unregulated (found by a review).
// The others' maximum is a lower bound of the load: above the target it
// proves an overload, and the step cuts; at or below it says nothing of the
// failed component, and the limit holds, as for any signal error. The error
// is still returned by Tick and counted.
func TestMaxOfPartialFailureStillCuts(t *testing.T) {
	boom := errors.New("boom")
	fails := aimd.SignalFunc(func(time.Time) (float64, error) { return 0, boom })
	reads := func(v float64) aimd.Signal {
		return aimd.SignalFunc(func(time.Time) (float64, error) { return v, nil })
	}
	for _, tc := range []struct {
		name string
		sig  aimd.MaxOf
		want int
	}{
		{"others above the target", aimd.MaxOf{{fails, 0.9}, {reads(0.04), 0.02}}, 70},
		{"others below the target", aimd.MaxOf{{fails, 0.9}, {reads(0.01), 0.02}}, 100},
		{"nested, above", aimd.MaxOf{{aimd.MaxOf{{fails, 1}, {reads(3), 1}}, 1}}, 70},
		{"all failed", aimd.MaxOf{{fails, 0.9}}, 100},
	} {
		l, err := aimd.New(aimd.Config{Signal: tc.sig, Target: 1, Manual: true,
			Initial: 100, Max: 100, MemoryLimit: -1})
		require.NoError(t, err)
		require.ErrorIs(t, l.Tick(time.Unix(1, 0)), boom, tc.name)
		assert.Equal(t, tc.want, l.Limit(), tc.name)
		st := l.Stats()
		assert.Equal(t, int64(1), st.SignalErrors, tc.name)
		assert.Equal(t, int64(100-tc.want)/30, st.Decreases, tc.name)
	}
}
