package shed_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestSchedulerOverOnFreshHoldsBackOnlyOld: a tenant marked over its share
// while on the fresh list (here by a shed, its bucket full), whose turn has
// come for a head that does not fit, holds back only the old list: a tenant
// under its share is served ahead of it, as the package doc says. It used to
// hold back every tenant until its head fitted.
func TestSchedulerOverOnFreshHoldsBackOnlyOld(t *testing.T) {
	s := newSched(t, shed.Config{Quantum: 100, MaxQueue: 1, QueueDeadline: time.Second})
	_, _, err := s.Push(t0, "A", 0, 10, req{tenant: "A"})
	require.NoError(t, err)
	_, _, err = s.Push(t0, "A", 0, 1, req{tenant: "A"})
	require.ErrorIs(t, err, shed.ErrShed) // bucket full: A is over its share
	_, _, err = s.Push(t0, "B", 0, 1, req{tenant: "B"})
	require.NoError(t, err)

	now := t0.Add(time.Millisecond)
	v, _, ok := s.Pop(now, 5, nil) // A's head (10) does not fit
	require.True(t, ok, "B, under its share, held back by A, over it")
	assert.Equal(t, "B", v.tenant)
	_, _, ok = s.Pop(now, 5, nil)
	assert.False(t, ok, "A's head still does not fit")
	v, _, ok = s.Pop(now, math.MaxInt64, nil)
	require.True(t, ok)
	assert.Equal(t, "A", v.tenant, "A keeps its turn on the old list")
}
