package aimd_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestSetConfigDuringStepDropsOldSignalsReading: a step samples its Signal
// outside the lock. A SetConfig that swapped the Signal and Target while it
// sampled (a latency of 0.1 s against a 0.05 s target, replaced by a CPU
// signal against 0.9) had the old signal's reading judged against the new
// target: twice the latency target read as an idle CPU, and the limit grew
// by the whole headroom instead of being cut.
func TestSetConfigDuringStepDropsOldSignalsReading(t *testing.T) {
	s := newStall(0.1, 0.1)
	lat := aimd.SignalFunc(func(time.Time) (float64, error) { return s.read(), nil })
	cfg := aimd.Config{Signal: lat, Target: 0.05, Manual: true, MemoryLimit: -1, Initial: 100}
	l := newLimiter(t, cfg)
	done := make(chan error, 1)
	go func() { done <- l.Tick(time.Unix(1000, 0)) }()
	<-s.entered
	cpu := &constLoad{}
	cpu.set(0.5)
	cfg.Signal, cfg.Target = cpu, 0.9
	require.NoError(t, l.SetConfig(cfg))
	close(s.release)
	require.NoError(t, <-done)
	st := l.Stats()
	assert.Equal(t, 100, st.Limit, "the old signal's reading says nothing against the new target")
	assert.Zero(t, st.Increases)
}

// stallSig is a pointer Signal reading s, so that SetConfig can keep it.
type stallSig struct{ s *stall }

func (g *stallSig) Sample(time.Time) (float64, error) { return g.s.read(), nil }

// TestSetConfigDuringStepKeepsSameSignalsReading: a SetConfig that keeps the
// Signal (the same pointer, or a MaxOf of the same slice) keeps the reading
// of a step that sampled it meanwhile: 2.0 against 0.9 cuts the limit.
func TestSetConfigDuringStepKeepsSameSignalsReading(t *testing.T) {
	for _, tt := range []struct {
		name string
		sig  func(aimd.Signal) aimd.Signal
	}{
		{"pointer", func(s aimd.Signal) aimd.Signal { return s }},
		{"MaxOf", func(s aimd.Signal) aimd.Signal { return aimd.MaxOf{{Signal: s, Target: 1}} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newStall(2, 2)
			cfg := aimd.Config{Signal: tt.sig(&stallSig{s}), Manual: true, MemoryLimit: -1, Initial: 100}
			l := newLimiter(t, cfg)
			done := make(chan error, 1)
			go func() { done <- l.Tick(time.Unix(1000, 0)) }()
			<-s.entered
			cfg.Increase = 2 // another knob; the Signal stays
			require.NoError(t, l.SetConfig(cfg))
			close(s.release)
			require.NoError(t, <-done)
			assert.Equal(t, 70, l.Stats().Limit, "100 x max(0.7, 0.9/2)")
		})
	}
}
