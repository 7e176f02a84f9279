package shed_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// invalidConfigs lists one Config per invalid field value, with a part of the
// message that must name it.
var invalidConfigs = []struct {
	name string
	give shed.Config
	want string
}{
	{"nil CapacityFunc", shed.Config{Capacity: shed.CapacityFunc(nil)}, "shed: Capacity is a nil shed.CapacityFunc"},
	{"nil *CapacityFunc", shed.Config{Capacity: (*shed.CapacityFunc)(nil)}, "shed: Capacity is a nil *shed.CapacityFunc"},
	{"*CapacityFunc to nil", shed.Config{Capacity: new(shed.CapacityFunc)}, "shed: Capacity is a nil *shed.CapacityFunc"},
	{"nil *Fixed", shed.Config{Capacity: (*shed.Fixed)(nil)}, "shed: Capacity is a nil *shed.Fixed"},
	{"Priorities -1", shed.Config{Priorities: -1}, "shed: Priorities -1 not in [0, 64]"},
	{"Priorities 65", shed.Config{Priorities: 65}, "shed: Priorities 65 not in [0, 64]"},
	{"Quantum", shed.Config{Quantum: -1}, "shed: Quantum -1 is negative"},
	{"MaxQueue", shed.Config{MaxQueue: -1}, "shed: MaxQueue -1 is negative"},
	{"MaxQueueCost", shed.Config{MaxQueueCost: -1}, "shed: MaxQueueCost -1 is negative"},
	{"QueueDeadline", shed.Config{QueueDeadline: -1}, "shed: QueueDeadline -1ns is negative"},
	{"StandingDeadline negative", shed.Config{StandingDeadline: -1}, "shed: StandingDeadline -1ns is negative"},
	{"StandingDeadline over", shed.Config{QueueDeadline: time.Millisecond, StandingDeadline: time.Second},
		"shed: StandingDeadline 1s exceeds QueueDeadline 1ms"},
	{"StandingDeadline over default", shed.Config{StandingDeadline: time.Second},
		"shed: StandingDeadline 1s exceeds QueueDeadline 100ms"},
	{"OverShareWindow", shed.Config{OverShareWindow: -1}, "shed: OverShareWindow -1ns is negative"},
	{"MaxTenants", shed.Config{MaxTenants: -1}, "shed: MaxTenants -1 is negative"},
	{"IdleTimeout", shed.Config{IdleTimeout: -1}, "shed: IdleTimeout -1ns is negative"},
	{"weight", shed.Config{Weights: map[string]int{"x": 0}}, `shed: weight 0 of tenant "x" is below 1`},
}

func TestConfigErrorsWrapErrInvalidConfig(t *testing.T) {
	for _, tt := range invalidConfigs {
		t.Run(tt.name, func(t *testing.T) {
			check := func(op string, err error) {
				t.Helper()
				require.ErrorIs(t, err, shed.ErrInvalidConfig, op)
				assert.ErrorContains(t, err, tt.want+": invalid config", op)
			}
			_, err := shed.New(tt.give)
			check("New", err)
			_, err = shed.NewScheduler[int](tt.give)
			check("NewScheduler", err)

			s, err := shed.New(shed.Config{})
			require.NoError(t, err)
			defer s.Close()
			check("Shedder.SetConfig", s.SetConfig(tt.give))
			sc, err := shed.NewScheduler[int](shed.Config{})
			require.NoError(t, err)
			check("Scheduler.SetConfig", sc.SetConfig(tt.give))
		})
	}
}

// TestConfigErrorsJoined: every field out of range is reported, each wrapping
// ErrInvalidConfig.
func TestConfigErrorsJoined(t *testing.T) {
	_, err := shed.New(shed.Config{Priorities: 99, Quantum: -1})
	require.ErrorIs(t, err, shed.ErrInvalidConfig)
	assert.EqualError(t, err, "shed: Priorities 99 not in [0, 64]: invalid config\nshed: Quantum -1 is negative: invalid config")
}

// TestConfigErrorsOnePerField: as ErrInvalidConfig says, each wrong field
// gives one error that names it: both deadlines negative are two errors, and
// a negative QueueDeadline does not also fail the StandingDeadline check.
func TestConfigErrorsOnePerField(t *testing.T) {
	_, err := shed.New(shed.Config{QueueDeadline: -1, StandingDeadline: -2})
	assert.EqualError(t, err, "shed: QueueDeadline -1ns is negative: invalid config\nshed: StandingDeadline -2ns is negative: invalid config")
	_, err = shed.New(shed.Config{QueueDeadline: -1})
	assert.EqualError(t, err, "shed: QueueDeadline -1ns is negative: invalid config")
}

// TestSetConfigInvalidKeepsPrevious: a refused SetConfig changes nothing, not
// even the fields of the refused Config that were valid.
func TestSetConfigInvalidKeepsPrevious(t *testing.T) {
	s, err := shed.New(shed.Config{Capacity: shed.Fixed(3)})
	require.NoError(t, err)
	defer s.Close()
	for _, tt := range invalidConfigs {
		bad := tt.give
		if bad.Capacity == nil {
			bad.Capacity = shed.Fixed(7)
		}
		require.ErrorIs(t, s.SetConfig(bad), shed.ErrInvalidConfig, tt.name)
		assert.Equal(t, 3, s.Stats().Limit, tt.name)
	}
	// The capacity in force admits 3, not 7.
	for range 3 {
		_, err := s.TryAcquire("a", 0, 1)
		require.NoError(t, err)
	}
	_, err = s.TryAcquire("a", 0, 1)
	require.ErrorIs(t, err, shed.ErrShed)

	sc, err := shed.NewScheduler[int](shed.Config{MaxQueue: 1})
	require.NoError(t, err)
	for _, tt := range invalidConfigs {
		bad := tt.give
		bad.MaxQueue = 5
		if tt.name == "MaxQueue" {
			bad.Quantum = -1
		}
		require.ErrorIs(t, sc.SetConfig(bad), shed.ErrInvalidConfig, tt.name)
	}
	// MaxQueue 1 is still in force: a second request in the bucket is shed.
	now := time.Unix(1_700_000_000, 0)
	_, _, err = sc.Push(now, "a", 0, 1, 1)
	require.NoError(t, err)
	_, _, err = sc.Push(now, "a", 0, 1, 2)
	var se *shed.ShedError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, shed.ReasonBucketFull, se.Reason)
}
