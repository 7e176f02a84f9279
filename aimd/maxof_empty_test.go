package aimd_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestMaxOfEmptyRefused: a MaxOf without components reads NaN ("no
// reading") at every step, so a Limiter on it never moved its limit from
// Initial (by default Max) and regulated nothing, without a word. New and
// SetConfig refuse it, also through a pointer and nested in another MaxOf,
// as they refuse a component whose Target keeps it from ever counting.
func TestMaxOfEmptyRefused(t *testing.T) {
	hot := aimd.SignalFunc(func(time.Time) (float64, error) { return 5, nil })
	empty := aimd.MaxOf{}
	for name, sig := range map[string]aimd.Signal{
		"empty":   aimd.MaxOf{},
		"nil":     aimd.MaxOf(nil),
		"pointer": &empty,
		"nested":  aimd.MaxOf{{Signal: hot, Target: 0.9}, {Signal: aimd.MaxOf{}, Target: 1}},
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
}
