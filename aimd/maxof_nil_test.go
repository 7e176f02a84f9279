package aimd_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestMaxOfNilComponentRefused: a MaxOf with a component without a Signal
// (nil, or a nil SignalFunc, also in a nested MaxOf) is refused by New and
// SetConfig, as a nil SignalFunc is. It was taken, and every step panicked,
// in the goroutine of the admission that took it. Sampled directly, such a
// MaxOf returns an error for that component and the others' maximum.
func TestMaxOfNilComponentRefused(t *testing.T) {
	half := aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })
	for name, sig := range map[string]aimd.MaxOf{
		"nil":               {{Signal: half, Target: 1}, {Signal: nil, Target: 1}},
		"nil SignalFunc":    {{Signal: aimd.SignalFunc(nil), Target: 1}},
		"nested nil":        {{Signal: aimd.MaxOf{{Signal: nil, Target: 1}}, Target: 1}},
		"nested SignalFunc": {{Signal: aimd.MaxOf{{Signal: half, Target: 1}, {Signal: aimd.SignalFunc(nil), Target: 1}}, Target: 1}},
	} {
		t.Run(name, func(t *testing.T) {
			requireSignalRefused(t, sig)

			var v float64
			var err error
			require.NotPanics(t, func() { v, err = sig.Sample(time.Now()) })
			require.Error(t, err)
			if name == "nil" {
				assert.Equal(t, 0.5, v, "the others' maximum")
			} else {
				assert.True(t, math.IsNaN(v) || v == 0.5, "got %v", v)
			}
		})
	}
}

// requireSignalRefused checks that New and SetConfig refuse sig with
// ErrInvalidConfig, and that a Limiter whose SetConfig refused it keeps
// stepping on the Signal it had.
func requireSignalRefused(t *testing.T, sig aimd.Signal) {
	t.Helper()
	half := aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })
	cfg := aimd.Config{Signal: sig, Manual: true, MemoryLimit: -1}
	_, err := aimd.New(cfg)
	require.ErrorIs(t, err, aimd.ErrInvalidConfig)
	l, err := aimd.New(aimd.Config{Signal: half, Manual: true, MemoryLimit: -1})
	require.NoError(t, err)
	require.ErrorIs(t, l.SetConfig(cfg), aimd.ErrInvalidConfig)
	require.NoError(t, l.Tick(time.Now()))
}
