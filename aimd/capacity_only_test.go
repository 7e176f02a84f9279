package aimd_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestLimitAloneDoesNotStep pins what the package doc now says about a
// Limiter used as a shed.Shedder's capacity: reading Limit never steps the
// loop, however many periods pass, so a Limiter that is only read keeps its
// initial limit under overload; its own admission (or Tick) steps it.
func TestLimitAloneDoesNotStep(t *testing.T) {
	sig := aimd.SignalFunc(func(time.Time) (float64, error) { return 1.8, nil }) // twice the target
	l, err := aimd.New(aimd.Config{Signal: sig, Max: 100, Period: time.Nanosecond, MemoryLimit: -1})
	require.NoError(t, err)
	start := time.Now()
	for range 1000 { // every call comes at least one Period after the one before
		require.Equal(t, 100, l.Limit())
	}
	require.Greater(t, time.Since(start), time.Duration(0))
	require.Zero(t, l.Stats().Steps, "Limit must not step")

	done, err := l.TryAcquire() // an admission steps the overdue loop
	require.NoError(t, err)
	done(true)
	require.Equal(t, int64(1), l.Stats().Steps)
	require.Equal(t, 70, l.Limit(), "one step cuts by max(Decrease, 0.9/1.8)")
}
