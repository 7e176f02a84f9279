package aimd_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestMaxOfBadTargetRefused: a MaxOf component whose Target is not a positive
// finite number (left at zero, say) is left out of every Sample, or reads 0
// against an infinite one: the signal never counts, and a Limiter on it
// ignored that overload without a word. New and SetConfig refuse such a
// MaxOf, also nested, as they refuse a component without a Signal.
func TestMaxOfBadTargetRefused(t *testing.T) {
	hot := aimd.SignalFunc(func(time.Time) (float64, error) { return 5, nil })
	for name, sig := range map[string]aimd.MaxOf{
		"zero":     {{Signal: hot, Target: 0.9}, {Signal: hot}},
		"negative": {{Signal: hot, Target: -1}},
		"NaN":      {{Signal: hot, Target: math.NaN()}},
		"infinite": {{Signal: hot, Target: math.Inf(1)}},
		"nested":   {{Signal: aimd.MaxOf{{Signal: hot, Target: 0}}, Target: 1}},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := aimd.Config{Signal: sig, Target: 1, Manual: true, MemoryLimit: -1}
			_, err := aimd.New(cfg)
			require.ErrorIs(t, err, aimd.ErrInvalidConfig)
			l, err := aimd.New(aimd.Config{Signal: hot, Manual: true, MemoryLimit: -1})
			require.NoError(t, err)
			require.ErrorIs(t, l.SetConfig(cfg), aimd.ErrInvalidConfig)
		})
	}
	ok := aimd.MaxOf{{Signal: hot, Target: 0.9}, {Signal: aimd.MaxOf{{Signal: hot, Target: 2}}, Target: 1}}
	_, err := aimd.New(aimd.Config{Signal: ok, Target: 1, Manual: true, MemoryLimit: -1})
	require.NoError(t, err)
}
