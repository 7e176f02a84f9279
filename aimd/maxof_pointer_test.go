package aimd_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestMaxOfPointerRefused: a *MaxOf is a Signal too (Sample has a value
// receiver), and New and SetConfig refuse it on the same grounds as a MaxOf:
// a component without a Signal, a Target that is not a positive finite
// number (the component would never count), also nested; and a nil *MaxOf,
// whose Sample panics at every step. They were taken unchecked.
func TestMaxOfPointerRefused(t *testing.T) {
	half := aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })
	for name, sig := range map[string]aimd.Signal{
		"nil component":      &aimd.MaxOf{{Signal: half, Target: 1}, {Signal: nil, Target: 1}},
		"zero Target":        &aimd.MaxOf{{Signal: half, Target: 0}},
		"nested nil":         aimd.MaxOf{{Signal: &aimd.MaxOf{{Signal: nil, Target: 1}}, Target: 1}},
		"nested zero Target": aimd.MaxOf{{Signal: &aimd.MaxOf{{Signal: half, Target: 0}}, Target: 1}},
		"nil *MaxOf":         (*aimd.MaxOf)(nil),
		"nested nil *MaxOf":  aimd.MaxOf{{Signal: (*aimd.MaxOf)(nil), Target: 1}},
	} {
		t.Run(name, func(t *testing.T) { requireSignalRefused(t, sig) })
	}
	// A valid *MaxOf is taken, and reads as its MaxOf does.
	l, err := aimd.New(aimd.Config{Signal: &aimd.MaxOf{{Signal: half, Target: 1}}, Manual: true, MemoryLimit: -1})
	require.NoError(t, err)
	require.NoError(t, l.Tick(time.Now()))
	require.Equal(t, 0.5, l.Stats().Load)
}
