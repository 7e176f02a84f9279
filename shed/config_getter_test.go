package shed_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestShedderConfigRoundTrip: a control knob changes one field of a
// Shedder's Config (copy it, set the field, SetConfig), as the control
// package documents. Without a Config getter the knob had to build a fresh
// Config, which silently reset every other field to its default (the
// Capacity to Fixed(64), the tenants' Weights to 1).
func TestShedderConfigRoundTrip(t *testing.T) {
	cfg := shed.Config{Capacity: shed.Fixed(8), MaxQueue: 5, QueueDeadline: 50 * time.Millisecond,
		Weights: map[string]int{"gold": 4}, ShedOnArrival: true}
	s, err := shed.New(cfg)
	require.NoError(t, err)
	defer s.Close()
	require.Equal(t, cfg, s.Config(), "Config returns what New got, zero fields zero")

	got := s.Config()
	got.Weights["gold"] = 9 // a copy: the Shedder's is not changed
	require.Equal(t, 4, s.Config().Weights["gold"])
	cfg.Weights["gold"] = 7 // New copied the caller's map too
	require.Equal(t, 4, s.Config().Weights["gold"])

	c := s.Config()
	c.MaxQueue = 10
	require.NoError(t, s.SetConfig(c))
	c2 := s.Config()
	require.Equal(t, 10, c2.MaxQueue)
	require.Equal(t, shed.Fixed(8), c2.Capacity)
	require.Equal(t, map[string]int{"gold": 4}, c2.Weights)
	require.Equal(t, 8, s.Stats().Limit)

	// A refused SetConfig changes nothing, Config included.
	bad := c2
	bad.MaxQueue = -1
	require.ErrorIs(t, s.SetConfig(bad), shed.ErrInvalidConfig)
	require.Equal(t, 10, s.Config().MaxQueue)
}

// TestSchedulerConfigRoundTrip: the Scheduler, the deterministic core, gives
// back its Config as the Shedder does (the Shedder's is the Scheduler's).
func TestSchedulerConfigRoundTrip(t *testing.T) {
	cfg := shed.Config{MaxQueue: 5, Weights: map[string]int{"gold": 4}}
	s, err := shed.NewScheduler[int](cfg)
	require.NoError(t, err)
	require.Equal(t, cfg, s.Config())
	c := s.Config()
	c.Weights["gold"] = 2
	require.Equal(t, 4, s.Config().Weights["gold"], "a copy")
	c.StandingDeadline = time.Millisecond
	require.NoError(t, s.SetConfig(c))
	require.Equal(t, c, s.Config())
	require.ErrorIs(t, s.SetConfig(shed.Config{MaxQueue: -1}), shed.ErrInvalidConfig)
	require.Equal(t, c, s.Config(), "a refused SetConfig changes nothing")
}
