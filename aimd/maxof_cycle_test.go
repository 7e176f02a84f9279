package aimd_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestMaxOfCycleRefused: a MaxOf that holds itself, directly, through a
// pointer or through another MaxOf, is sampled by recursing without end.
// New and SetConfig walked it the same way to check its components, and
// overflowed the stack, a fatal error that killed the process, where they
// promise an error wrapping ErrInvalidConfig. They refuse it now; a MaxOf
// that holds a shorter slice of its own array is no cycle and is accepted.
func TestMaxOfCycleRefused(t *testing.T) {
	cpu := aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })
	self := aimd.MaxOf{{Signal: cpu, Target: 0.9}, {Target: 1}}
	self[1].Signal = self
	viaPtr := aimd.MaxOf{{Signal: cpu, Target: 0.9}, {Target: 1}}
	viaPtr[1].Signal = &viaPtr
	outer := aimd.MaxOf{{Signal: cpu, Target: 0.9}, {Target: 1}}
	inner := aimd.MaxOf{{Signal: outer, Target: 1}}
	outer[1].Signal = inner
	for name, sig := range map[string]aimd.Signal{
		"itself":          self,
		"through pointer": &viaPtr,
		"through another": outer,
		"nested cycle":    aimd.MaxOf{{Signal: self, Target: 1}},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := aimd.Config{Signal: sig, Target: 1, Manual: true, MemoryLimit: -1}
			_, err := aimd.New(cfg)
			require.ErrorIs(t, err, aimd.ErrInvalidConfig)
			l, err := aimd.New(aimd.Config{Signal: cpu, Manual: true, MemoryLimit: -1})
			require.NoError(t, err)
			require.ErrorIs(t, l.SetConfig(cfg), aimd.ErrInvalidConfig)
		})
	}

	prefix := aimd.MaxOf{{Signal: cpu, Target: 0.9}, {Target: 1}}
	prefix[1].Signal = prefix[:1] // the first component again: no cycle
	l, err := aimd.New(aimd.Config{Signal: prefix, Target: 1, Manual: true, MemoryLimit: -1})
	require.NoError(t, err)
	require.NoError(t, l.Tick(time.Unix(1, 0)))
	assert.InDelta(t, 0.5/0.9, l.Stats().Load, 1e-12)
}
