package aimd_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// invalidConfigs lists one Config per invalid field value, with a part of the
// message that must name it. Each sets its own Signal and no memory guard, so
// that New reads nothing from the machine.
func invalidConfigs() []struct {
	name string
	give aimd.Config
	want string
} {
	nan, inf := math.NaN(), math.Inf(1)
	return []struct {
		name string
		give aimd.Config
		want string
	}{
		{"Target negative", aimd.Config{Target: -0.1}, "aimd: Target -0.1 is not a finite non-negative number"},
		{"Target NaN", aimd.Config{Target: nan}, "aimd: Target NaN is not a finite non-negative number"},
		{"Target Inf", aimd.Config{Target: inf}, "aimd: Target +Inf is not a finite non-negative number"},
		{"Period", aimd.Config{Period: -time.Second}, "aimd: Period -1s is negative"},
		{"Min", aimd.Config{Min: -1}, "aimd: Min -1 is negative"},
		{"Max", aimd.Config{Max: -1}, "aimd: Max -1 is negative"},
		{"Initial", aimd.Config{Initial: -1}, "aimd: Initial -1 is negative"},
		{"Increase", aimd.Config{Increase: -1}, "aimd: Increase -1 is negative"},
		{"RateIncrease", aimd.Config{RateIncrease: -1}, "aimd: RateIncrease -1 is negative"},
		{"Increase Inf", aimd.Config{Increase: inf}, "aimd: Increase +Inf is not a finite number"},
		{"Gain NaN", aimd.Config{Gain: nan}, "aimd: Gain NaN is not a finite number"},
		{"Decrease NaN", aimd.Config{Decrease: nan}, "aimd: Decrease NaN is not a finite number"},
		{"MinRate NaN", aimd.Config{MinRate: nan}, "aimd: MinRate NaN is not a finite number"},
		{"MaxRate Inf", aimd.Config{MaxRate: inf}, "aimd: MaxRate +Inf is not a finite number"},
		{"RateIncrease NaN", aimd.Config{RateIncrease: nan}, "aimd: RateIncrease NaN is not a finite number"},
		{"MemoryHigh NaN", aimd.Config{MemoryHigh: nan}, "aimd: MemoryHigh NaN is not a finite number"},
		{"MemoryLow NaN", aimd.Config{MemoryLow: nan}, "aimd: MemoryLow NaN is not a finite number"},
		{"Decrease negative", aimd.Config{Decrease: -0.5}, "aimd: Decrease -0.5 not in (0, 1)"},
		{"Decrease 1", aimd.Config{Decrease: 1}, "aimd: Decrease 1 not in (0, 1)"},
		{"Backoff negative", aimd.Config{Backoff: -0.1}, "aimd: Backoff -0.1 not in [0, 1]"},
		{"Backoff over 1", aimd.Config{Backoff: 1.5}, "aimd: Backoff 1.5 not in [0, 1]"},
		{"Backoff NaN", aimd.Config{Backoff: nan}, "aimd: Backoff NaN not in [0, 1]"},
		{"MinRate negative", aimd.Config{MinRate: -1}, "aimd: MinRate -1 is negative"},
		{"MaxRate negative", aimd.Config{MaxRate: -1}, "aimd: MaxRate -1 is negative"},
		{"MinRate over MaxRate", aimd.Config{MinRate: 10, MaxRate: 5}, "aimd: rate bounds [10, 5] invalid"},
		{"MemoryHigh over 1", aimd.Config{MemoryHigh: 1.5}, "aimd: MemoryHigh 1.5 not in [0, 1]"},
		{"MemoryLow negative", aimd.Config{MemoryLow: -0.1}, "aimd: MemoryLow -0.1 not in [0, 1]"},
		{"Min over Max", aimd.Config{Min: 10, Max: 5}, "aimd: Min 10 exceeds Max 5"},
		{"Initial over Max", aimd.Config{Max: 5, Initial: 6}, "aimd: Initial 6 not in [1, 5]"},
		{"Initial under Min", aimd.Config{Min: 5, Initial: 2}, "aimd: Initial 2 not in [5, 1000]"},
		{"MemoryLow over MemoryHigh", aimd.Config{MemoryHigh: 0.5}, "aimd: MemoryLow 0.8 exceeds MemoryHigh 0.5"},
	}
}

var constSignal = aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })

func TestConfigErrorsWrapErrInvalidConfig(t *testing.T) {
	for _, tt := range invalidConfigs() {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.give
			cfg.Signal, cfg.Manual, cfg.MemoryLimit = constSignal, true, -1
			_, err := aimd.New(cfg)
			require.ErrorIs(t, err, aimd.ErrInvalidConfig, "New")
			assert.ErrorContains(t, err, tt.want+": invalid config", "New")

			l, err := aimd.New(aimd.Config{Signal: constSignal, Manual: true, MemoryLimit: -1})
			require.NoError(t, err)
			defer l.Close()
			err = l.SetConfig(cfg)
			require.ErrorIs(t, err, aimd.ErrInvalidConfig, "SetConfig")
			assert.ErrorContains(t, err, tt.want+": invalid config", "SetConfig")
		})
	}
}

// TestNilSignalFuncRefused: a nil SignalFunc in a non-nil Signal is not
// the default signal; called at each step, it would panic.
func TestNilSignalFuncRefused(t *testing.T) {
	cfg := aimd.Config{Signal: aimd.SignalFunc(nil), Manual: true, MemoryLimit: -1}
	_, err := aimd.New(cfg)
	require.ErrorIs(t, err, aimd.ErrInvalidConfig)
	assert.EqualError(t, err, "aimd: Signal is a nil SignalFunc: invalid config")
	l, err := aimd.New(aimd.Config{Signal: constSignal, Manual: true, MemoryLimit: -1})
	require.NoError(t, err)
	defer l.Close()
	require.ErrorIs(t, l.SetConfig(cfg), aimd.ErrInvalidConfig)
	require.NoError(t, l.Tick(time.Now())) // the previous signal is kept: no panic
}

// TestConfigErrorsJoined: every field out of range is reported, each wrapping
// ErrInvalidConfig.
func TestConfigErrorsJoined(t *testing.T) {
	_, err := aimd.New(aimd.Config{Signal: constSignal, Manual: true, MemoryLimit: -1, Period: -1, Backoff: 2})
	require.ErrorIs(t, err, aimd.ErrInvalidConfig)
	assert.EqualError(t, err, "aimd: Period -1ns is negative: invalid config\naimd: Backoff 2 not in [0, 1]: invalid config")
}

// TestConfigErrorsOnePerField: as ErrInvalidConfig says, each wrong field
// gives one error that names it: two wrong fields are not reported as one,
// and a negative bound does not also fail the range checks it takes part in.
func TestConfigErrorsOnePerField(t *testing.T) {
	base := aimd.Config{Signal: constSignal, Manual: true, MemoryLimit: -1}
	for _, tt := range []struct {
		name string
		give func(*aimd.Config)
		want string
	}{
		{"Increase and RateIncrease", func(c *aimd.Config) { c.Increase, c.RateIncrease = -1, -2 },
			"aimd: Increase -1 is negative: invalid config\naimd: RateIncrease -2 is negative: invalid config"},
		{"Min and Max", func(c *aimd.Config) { c.Min, c.Max = -1, -2 },
			"aimd: Min -1 is negative: invalid config\naimd: Max -2 is negative: invalid config"},
		{"Max alone", func(c *aimd.Config) { c.Max = -1 }, "aimd: Max -1 is negative: invalid config"},
		{"Min over Max", func(c *aimd.Config) { c.Min, c.Max = 10, 5 }, "aimd: Min 10 exceeds Max 5: invalid config"},
		// an infinite figure is not also out of its range, nor does it
		// fail the checks against the other fields
		{"Increase -Inf", func(c *aimd.Config) { c.Increase = math.Inf(-1) },
			"aimd: Increase -Inf is not a finite number: invalid config"},
		{"Decrease -Inf", func(c *aimd.Config) { c.Decrease = math.Inf(-1) },
			"aimd: Decrease -Inf is not a finite number: invalid config"},
		{"MinRate -Inf", func(c *aimd.Config) { c.MinRate, c.MaxRate = math.Inf(-1), 10 },
			"aimd: MinRate -Inf is not a finite number: invalid config"},
		{"MemoryHigh -Inf", func(c *aimd.Config) { c.MemoryHigh = math.Inf(-1) },
			"aimd: MemoryHigh -Inf is not a finite number: invalid config"},
		// two wrong fields are two errors, each naming its field
		{"MinRate and MaxRate", func(c *aimd.Config) { c.MinRate, c.MaxRate = -1, -2 },
			"aimd: MinRate -1 is negative: invalid config\naimd: MaxRate -2 is negative: invalid config"},
		{"MemoryHigh and MemoryLow", func(c *aimd.Config) { c.MemoryHigh, c.MemoryLow = 1.5, -0.1 },
			"aimd: MemoryHigh 1.5 not in [0, 1]: invalid config\naimd: MemoryLow -0.1 not in [0, 1]: invalid config"},
	} {
		cfg := base
		tt.give(&cfg)
		_, err := aimd.New(cfg)
		assert.EqualError(t, err, tt.want, tt.name)
	}
}

// TestSetConfigInvalidKeepsPrevious: a refused SetConfig changes nothing, not
// even the fields of the refused Config that were valid.
func TestSetConfigInvalidKeepsPrevious(t *testing.T) {
	good := aimd.Config{Signal: constSignal, Manual: true, MemoryLimit: -1, Min: 5, Max: 10, Initial: 7, MaxRate: 100, MinRate: 50}
	l, err := aimd.New(good)
	require.NoError(t, err)
	defer l.Close()
	for _, tt := range invalidConfigs() {
		bad := tt.give
		bad.Signal, bad.Manual, bad.MemoryLimit = constSignal, true, -1
		if bad.Max == 0 {
			bad.Max = 3 // would clamp the limit to 3 if applied
		}
		if bad.MaxRate == 0 {
			bad.MaxRate, bad.MinRate = 10, min(bad.MinRate, 10) // would clamp the rate to 10
		}
		require.ErrorIs(t, l.SetConfig(bad), aimd.ErrInvalidConfig, tt.name)
		st := l.Stats()
		assert.Equal(t, 7, st.Limit, tt.name)
		assert.Equal(t, 100.0, st.Rate, tt.name)
	}
}
