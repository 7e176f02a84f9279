package aimd_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestLoadRecordsPartialReading: Stats.Load is the last reading that was a
// number, and a MaxOf's partial reading (one component failed, the others'
// maximum returned with the error) is one, a lower bound of the load. It was
// recorded only above the target, where the step cuts on it: at or below
// it, Load kept the reading from before the failure. A plain signal error
// is no reading, whatever number comes with it, and leaves Load.
func TestLoadRecordsPartialReading(t *testing.T) {
	boom := errors.New("boom")
	fails := aimd.SignalFunc(func(time.Time) (float64, error) { return 0.7, boom })
	reads := func(v float64) aimd.Signal {
		return aimd.SignalFunc(func(time.Time) (float64, error) { return v, nil })
	}
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
			require.ErrorIs(t, l.Tick(time.Unix(2, 0)), boom)
			assert.Equal(t, tt.want, l.Stats().Load)
		})
	}
}
