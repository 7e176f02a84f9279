package aimd_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestConfigGetterRoundTrip: a control knob changes one field of a
// Limiter's Config (copy it, set the field, SetConfig), as the control
// package documents. Without a Config getter the knob had to build a fresh
// Config, which silently reset every other field to its default (Max 100
// became 1000, the Signal the default CPU signal).
func TestConfigGetterRoundTrip(t *testing.T) {
	sig := aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })
	cfg := aimd.Config{Signal: sig, Max: 100, Initial: 40, Period: 10 * time.Millisecond, MemoryLimit: -1, Gain: -1}
	l, err := aimd.New(cfg)
	require.NoError(t, err)
	got := l.Config()
	require.NotNil(t, got.Signal)
	got.Signal, cfg.Signal = nil, nil // funcs do not compare
	require.Equal(t, cfg, got, "Config returns what New got, zero fields zero")

	c := l.Config()
	c.Target = 0.7
	require.NoError(t, l.SetConfig(c))
	c2 := l.Config()
	require.InDelta(t, 0.7, c2.Target, 0)
	require.Equal(t, 100, c2.Max)
	require.Equal(t, int64(-1), c2.MemoryLimit)
	require.InDelta(t, -1, c2.Gain, 0, "a negative Gain must not come back as 0 (0 means the default 0.5)")
	require.Equal(t, 40, l.Limit(), "SetConfig kept the limit inside the bounds")

	// A refused SetConfig changes nothing, Config included.
	bad := c2
	bad.Max = -1
	require.ErrorIs(t, l.SetConfig(bad), aimd.ErrInvalidConfig)
	require.Equal(t, 100, l.Config().Max)
}

// TestConfigGetterDefaultSignal: a nil Signal reads back nil, and a
// SetConfig of it keeps the Limiter's default signal.
func TestConfigGetterDefaultSignal(t *testing.T) {
	l, err := aimd.New(aimd.Config{Max: 10, MemoryLimit: -1})
	require.NoError(t, err)
	c := l.Config()
	require.Nil(t, c.Signal)
	c.Max = 20
	require.NoError(t, l.SetConfig(c))
	require.Equal(t, 20, l.Config().Max)
	require.Nil(t, l.Config().Signal)
}
