package shed_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestStandingDeadlineAboveDefaultQueueDeadline: StandingDeadline must not
// exceed QueueDeadline, and a zero QueueDeadline means DefaultQueueDeadline.
// A StandingDeadline above the default is the same contradiction whether the
// QueueDeadline is left zero or spelled out, so both are rejected, by New,
// NewScheduler and SetConfig alike, instead of the first being cut down to
// the default without a word.
func TestStandingDeadlineAboveDefaultQueueDeadline(t *testing.T) {
	over := shed.DefaultQueueDeadline + time.Millisecond
	for _, cfg := range []shed.Config{
		{StandingDeadline: over},
		{QueueDeadline: shed.DefaultQueueDeadline, StandingDeadline: over},
	} {
		_, err := shed.New(cfg)
		require.Error(t, err, "New(%+v)", cfg)
		_, err = shed.NewScheduler[int](cfg)
		require.Error(t, err, "NewScheduler(%+v)", cfg)
		s, err := shed.New(shed.Config{})
		require.NoError(t, err)
		require.Error(t, s.SetConfig(cfg), "SetConfig(%+v)", cfg)
	}
	// At the default it is accepted, as the equal deadlines that disable it.
	_, err := shed.New(shed.Config{StandingDeadline: shed.DefaultQueueDeadline})
	require.NoError(t, err)
}
