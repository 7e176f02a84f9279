package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAPFEnqueueBoundsNextDispatch: APF bounds a queue's next dispatch R by
// the arrival R of its oldest waiting request after it places a request
// (timeoutOldRequestsAndRejectOrEnqueueLocked defers boundNextDispatchLocked),
// so a queue that still has a request executing, and whose next dispatch R
// fell behind the virtual clock while nothing of it waited, gets no credit
// for that time over a queue backlogged all along. Queue 0 executes one
// request at next dispatch R 1 ms, queue 1 waits at 5 ms, R is 10 ms: a new
// request of queue 0 finishes at 13 ms, queue 1's at 8 ms, so queue 1 goes
// first.
func TestAPFEnqueueBoundsNextDispatch(t *testing.T) {
	s := scenario{Slots: 2, Unit: time.Millisecond, Normal: 2, Deadline: time.Second}
	p := &apfPolicy{queues: 2, hand: 1, queueLen: 50}
	p.reset(s, func(*request) {})
	p.hands[0], p.hands[1] = []int{0}, []int{1}
	p.r = 0.010
	p.qs[0].executing, p.qs[0].nextR = 1, 0.001
	waiting := request{tenant: 1, name: "b", cost: 1, apfQueue: 1, apfR: 0.005}
	p.qs[1].waiting.push(&waiting)
	p.qs[1].nextR = 0.005
	p.executing, p.queued, p.active = 1, 1, 2

	fresh := request{tenant: 0, name: "a", cost: 1}
	require.True(t, p.offer(0, &fresh, 2))
	assert.InDelta(t, 0.010, p.qs[0].nextR, 1e-12, "bounded by the arrival R of its oldest waiting request")
	assert.Same(t, &waiting, p.next(0, 1), "the queue backlogged since 5 ms first")
}
