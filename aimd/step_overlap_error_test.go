package aimd_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestOverlappedStepStillReportsSignalError: a step whose readings are
// dropped because a later step completed while it sampled still took a step
// whose signal failed: Tick returns the signal's error ("It returns the
// signal's error, if any") and Stats counts it in SignalErrors ("steps whose
// signal failed") as in Steps. No test checked it: a dropped step that
// counted no signal error passed the suite.
func TestOverlappedStepStillReportsSignalError(t *testing.T) {
	errSample := errors.New("test: sample failed")
	s := newStall(0.5, 0.5)
	var calls int
	sig := aimd.SignalFunc(func(time.Time) (float64, error) {
		calls++ // the stalled call is the first; the second runs while it waits
		if calls == 1 {
			return s.read(), errSample
		}
		return s.read(), nil
	})
	l := newLimiter(t, aimd.Config{Signal: sig, Manual: true, MemoryLimit: -1, Initial: 100})
	t0 := time.Unix(1000, 0)
	stalled := make(chan error, 1)
	go func() { stalled <- l.Tick(t0) }()
	<-s.entered
	require.NoError(t, l.Tick(t0.Add(100*time.Millisecond)))
	close(s.release)
	require.ErrorIs(t, <-stalled, errSample, "the dropped step's Tick")
	st := l.Stats()
	assert.Equal(t, int64(2), st.Steps)
	assert.Equal(t, int64(1), st.SignalErrors, "the dropped step's signal failed")
	assert.Equal(t, 0.5, st.Load)
}
