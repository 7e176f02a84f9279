package cache

import "math/rand/v2"

// Hit sampling: while goroutines contend for the cache's locks, only one hit
// in 1<<sampleShift is buffered for the policy.
//
// Each buffered hit costs a stripe lock, and its replay (an increment of the
// frequency sketch and a move in a queue, mostly cache misses) is done by the
// next insert, under the policy lock, on a writer's critical path, while the
// other goroutines' inserts find the lock held. A single goroutine's hits all
// reach the policy, so its replay stays that of a strict policy (the
// hit-ratio traces, the deterministic tests). With two goroutines on two
// cores, at 75% reads while evicting, sampling took 10% less time in 8
// paired rounds (p = 0.015), with the hit ratio unchanged (87.9% against
// 88.0%; twenty-eighth session, bench/cache/sampling_abba.txt). Caffeine's
// and otter's lossy buffers drop hits too, but only when their drains fall
// behind (otter's, in the same benchmark, pass about 5% of its hits).
//
// The evidence of contention is a lock try that failed: of the policy lock by
// an insert or a replay, of a stripe by a hit (the stripe's drainer holds
// it). A single goroutine never fails one. Inserts' drains evaluate it
// (observeDrain): the sampling starts at the second drain in a row to follow
// a failed try, and stops after sampleOffDrains drains in a row with none.
//
// Which stripe a goroutine uses is no evidence: it is picked by a stack
// address, which differs between call paths of one goroutine (a hit through
// Get and an update through Set), so one goroutine fills several stripes.

const (
	// sampleShiftOn is the sampling's shift: one hit in 4 is buffered
	// (one in 8 was no faster, bench/cache/sampling_abba.txt).
	sampleShiftOn = 2
	// sampleOffDrains is how many drains in a row with no failed try stop
	// the sampling.
	sampleOffDrains = 64
)

// sampled reports whether a hit is to be buffered for the policy: always,
// unless sampling, and then with probability 1 in 1<<shift.
func (c *Cache[K, V]) sampled() bool {
	sh := c.sampleShift.Load()
	return sh == 0 || rand.Uint32()>>(32-sh) == 0
}

// tryFailed records a failed lock try, the evidence of contention. It is a
// flag, written once between drains: a count would bounce its line between
// the cores on every failed try.
func (c *Cache[K, V]) tryFailed() {
	if !c.tries.failed.Load() {
		c.tries.failed.Store(true)
	}
}

// observeDrain updates the sampling at a drain: whether a lock try failed
// since the last one. The caller holds c.mu.
func (c *Cache[K, V]) observeDrain() {
	p := &c.pol
	if c.tries.failed.Load() {
		c.tries.failed.Store(false)
		p.quietDrains = 0
		p.contendedDrains = min(p.contendedDrains+1, 2)
	} else {
		p.contendedDrains = 0
		p.quietDrains = min(p.quietDrains+1, sampleOffDrains)
	}
	shift := c.sampleShift.Load()
	switch {
	case shift == 0 && p.contendedDrains >= 2:
		shift = sampleShiftOn
	case shift != 0 && p.quietDrains >= sampleOffDrains:
		shift = 0
	default:
		return
	}
	c.sampleShift.Store(shift)
	// A replayed hit stands for 1<<shift hits in the climber's hit rate.
	p.hitWeight = 1 << shift
}
