package control

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Apply and Rollback read the clock with the registry's lock held: a time
// read before it could be older than that of a change that took it first.
func TestClockReadUnderLock(t *testing.T) {
	reg, err := New(Config{})
	require.NoError(t, err)
	var x int64
	require.NoError(t, reg.RegisterInt(IntKnob{Name: "x", Apply: func(v int64) error { x = v; return nil }}))
	reads := 0
	clock := func() time.Time {
		reads++
		require.False(t, reg.change.TryLock(), "clock read without the lock")
		return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	_, err = reg.apply(clock, Request{Changes: []Change{{Knob: "x", Value: Int(1)}}}, nil)
	require.NoError(t, err)
	_, err = reg.rollback(clock, "t", "", nil)
	require.NoError(t, err)
	require.Equal(t, 2, reads)
	require.Equal(t, int64(0), x)
}
