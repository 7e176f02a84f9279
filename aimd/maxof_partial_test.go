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
	fails := failing(0)
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
		require.ErrorIs(t, l.Tick(time.Unix(1, 0)), errBoom, tc.name)
		assert.Equal(t, tc.want, l.Limit(), tc.name)
		st := l.Stats()
		assert.Equal(t, int64(1), st.SignalErrors, tc.name)
		assert.Equal(t, int64(100-tc.want)/30, st.Decreases, tc.name)
	}
}

var errBoom = errors.New("boom")

// failing is a signal that reads v with errBoom; reads(v) one that reads v.
func failing(v float64) aimd.Signal {
	return aimd.SignalFunc(func(time.Time) (float64, error) { return v, errBoom })
}

func reads(v float64) aimd.Signal {
	return aimd.SignalFunc(func(time.Time) (float64, error) { return v, nil })
}

// TestLoadRecordsPartialReading: Stats.Load is the last reading that was a
// number, and a MaxOf's partial reading (one component failed, the others'
// maximum returned with the error) is one, a lower bound of the load. It was
// recorded only above the target, where the step cuts on it: at or below
// it, Load kept the reading from before the failure. A plain signal error
// is no reading, whatever number comes with it, and leaves Load.
func TestLoadRecordsPartialReading(t *testing.T) {
	fails := failing(0.7)
	for _, tt := range []struct {
		name string
		give aimd.Signal
		want float64
	}{
		{"partial, above the target", aimd.MaxOf{{fails, 1}, {reads(3), 2}}, 1.5},
		{"partial, below the target", aimd.MaxOf{{fails, 1}, {reads(1), 2}}, 0.5},
		{"nested partial, below", aimd.MaxOf{{aimd.MaxOf{{fails, 1}, {reads(0.25), 1}}, 1}}, 0.25},
		{"all failed", aimd.MaxOf{{fails, 1}}, 0.2},
		{"plain error", fails, 0.2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sig := tt.give
			first := true
			l, err := aimd.New(aimd.Config{Target: 1, Manual: true, Initial: 100, Max: 100, MemoryLimit: -1,
				Signal: aimd.SignalFunc(func(now time.Time) (float64, error) {
					if first { // a reading before the failure
						first = false
						return 0.2, nil
					}
					return sig.Sample(now)
				})})
			require.NoError(t, err)
			require.NoError(t, l.Tick(time.Unix(1, 0)))
			require.ErrorIs(t, l.Tick(time.Unix(2, 0)), errBoom)
			assert.Equal(t, tt.want, l.Stats().Load)
		})
	}
}
