package aimd

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSignalErrorsAreTyped: each error this package's own signals make is one
// a caller of Sample (or of Limiter.Tick, which returns it) can tell apart
// with errors.Is: a MaxOf component without a Signal is a configuration
// mistake (ErrInvalidConfig, as New says of the same MaxOf), and a signal the
// platform or runtime cannot read is errors.ErrUnsupported.
func TestSignalErrorsAreTyped(t *testing.T) {
	var nilFunc SignalFunc
	tests := []struct {
		name string
		give func() error
		want error
	}{
		{"MaxOf nil component", func() error {
			_, err := MaxOf{{Signal: nil, Target: 1}}.Sample(time.Unix(1, 0))
			return err
		}, ErrInvalidConfig},
		{"MaxOf nil SignalFunc beside a reading", func() error {
			ok := SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })
			_, err := MaxOf{{Signal: ok, Target: 1}, {Signal: nilFunc, Target: 1}}.Sample(time.Unix(1, 0))
			return err
		}, ErrInvalidConfig},
		{"ProcessCPU without getrusage", func() error { return errNoProcessCPU }, errors.ErrUnsupported},
		{"SchedLatency without its metric", func() error { return errNoSchedMetric }, errors.ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.give()
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.want)
		})
	}
}

// TestTickReturnsTypedSignalError: a Limiter whose MaxOf lost a component
// after New (the slice is shared) returns the typed error from Tick.
func TestTickReturnsTypedSignalError(t *testing.T) {
	ok := SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })
	m := MaxOf{{Signal: ok, Target: 1}, {Signal: ok, Target: 1}}
	l, err := New(Config{Signal: m, Manual: true, Min: 1, Max: 10})
	require.NoError(t, err)
	defer l.Close()
	m[1].Signal = nil
	err = l.Tick(time.Now())
	assert.ErrorIs(t, err, ErrInvalidConfig)
}
