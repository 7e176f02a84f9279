package shed_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestEmptiedTenantKeepsNoCredit: a tenant whose only queued request is huge
// gathers credit, round after round, until the request is at the head and
// does not fit; if that request then leaves the queue unserved (canceled
// here) and nothing else is queued, the Shedder never calls Pop to find the
// tenant empty at the head. Its credit used to survive, so that in the next
// busy period the tenant was served that whole credit (here 100 requests'
// worth) before another tenant got its first request.
func TestEmptiedTenantKeepsNoCredit(t *testing.T) {
	s := newSched(t, shed.Config{Quantum: 1, MaxQueue: 100, MaxQueueCost: 1000, QueueDeadline: time.Hour})
	h, _, err := s.Push(t0, "A", 0, 100, req{tenant: "A", cost: 100})
	require.NoError(t, err)
	_, _, ok := s.Pop(t0, 10, nil)
	require.False(t, ok, "A's request of cost 100 does not fit in 10")
	require.True(t, s.Remove(t0, h, 0))
	require.Zero(t, s.Queued())

	for i := range 5 {
		for _, tenant := range []string{"A", "C"} {
			_, _, err := s.Push(t0, tenant, 0, 1, req{tenant: tenant, cost: 1, seq: i})
			require.NoError(t, err)
		}
	}
	served := drain(s, t0, 10)
	require.Len(t, served, 10)
	for i := 1; i < len(served); i++ {
		assert.NotEqual(t, served[i-1].tenant, served[i].tenant,
			"pop %d: A and C alternate; a tenant whose queue emptied starts the next busy period with no credit", i)
	}
}

// TestCostlyHeadHoldsEveryTenantBack pins the Scheduler doc's NOTE: a head
// whose turn came and that does not fit in the free capacity holds back the
// other tenants' cheap requests too, until enough is free (the Shedder passes no limit at all
// once nothing is in flight).
func TestCostlyHeadHoldsEveryTenantBack(t *testing.T) {
	s := newSched(t, shed.Config{Quantum: 1, QueueDeadline: time.Hour})
	_, _, err := s.Push(t0, "A", 0, 100, req{tenant: "A", cost: 100})
	require.NoError(t, err)
	_, _, ok := s.Pop(t0, 5, nil)
	require.False(t, ok, "A's turn comes (its deficit covers 100), and its request does not fit")
	_, _, err = s.Push(t0, "C", 0, 1, req{tenant: "C", cost: 1})
	require.NoError(t, err)
	for range 3 {
		_, _, ok := s.Pop(t0, 5, nil)
		require.False(t, ok, "C's request fits in 5 but waits behind A's")
	}
	served := drain(s, t0, 2)
	require.Len(t, served, 2)
	assert.Equal(t, "A", served[0].tenant)
	assert.Equal(t, "C", served[1].tenant)
}
