package cache

import "github.com/tierkit/tierkit/internal/mix"

// Hit sampling: while goroutines contend for the cache's locks, or while hits
// come with no insert among them, only one counted hit in 1<<sampleShift is
// buffered for the policy: one in 4 (sampleShiftOn) under contention, one in
// 64 (sampleShiftReadMostly) while reads come with no insert.
//
// Each buffered hit costs a stripe lock (two locked instructions) and a
// replay: an increment of the frequency sketch and a move in a queue, mostly
// cache misses, under the policy lock. Two cases make that the bulk of the
// work, and sampling them is what Caffeine's and otter's lossy buffers do in
// effect (otter, in bench/cache's throughput benchmark, passes about 5% of
// its hits to its policy with 25% writes and almost none at 100% reads):
//
//   - Contention. The next insert's drain replays every stripe's hits on a
//     writer's critical path while the other goroutines' inserts find the
//     lock held. The evidence is a lock try that failed: of the policy lock
//     by an insert or a replay, of a stripe by a hit (its drainer holds it).
//     A single goroutine never fails one. Inserts' drains evaluate it
//     (observeDrain): the sampling starts at the second drain in a row to
//     follow a failed try, and stops after sampleOffDrains drains in a row
//     with none. With two goroutines at 75% reads while evicting: 9.8% less
//     time in 8 paired rounds (p = 0.015), hit ratio unchanged.
//   - Reads with no insert. The policy only decides at an insert (which entry
//     to evict); hits between inserts only order its queues and count in its
//     sketch, which a sample does in proportion. After readMostlyHits hits
//     with no insert the sampling starts, and the next insert stops it. A
//     single goroutine replaying a trace (a miss, so an insert, every few
//     hits) never reaches it. In 8 paired rounds against the contention's
//     sampling alone (twenty-eighth session, bench/cache/sampling_abba.txt):
//     19% less time at 100% reads while evicting (p < 0.001), 20% at 75%
//     reads with the keyspace cached (p = 0.001), 9% at 100% reads cached
//     (median of the rounds' ratios; faster in 7 of 8, p = 0.088). That
//     sampled one hit in 4; since the fifty-second session it samples one
//     in 64: each buffered hit still costs two locked instructions and a
//     replay that writes the hot nodes' lines (their queue links), which the
//     other core's readers of those nodes then miss. On an Intel host (6
//     paired rounds, bench/cache/readmostly_abba52.txt) one in 64 took
//     0.60x and 0.65x the time of one in 4 at 100% reads (cached, evicting;
//     faster in 5 and 6 of 6) and 0.70x at 75% reads cached (updates are no
//     inserts), one in 16 0.74x, 0.77x and 0.80x. Otter, which drops what
//     its full read buffers cannot take, passes almost none of its hits to
//     its policy in such phases; here one in 64 still orders the queues
//     and counts in the sketch in proportion, and the next insert ends it.
//     Its cost in hit ratio, replaying workloads that alternate read-only
//     phases with read-through ones (8 seeds, bench/cache/readmostly_phases52.txt):
//     -0.09 to +2.00 points against one in 4, except a Zipf hot set that
//     jumps to new keys each phase at capacity 10,000, -0.64 (sd 0.77).
//
// The sample is drawn from the stripe's count of hits, which a sampled hit
// increments anyway (sampleHit): no random source to call (the runtime's
// took 8% of a hit's time), and a mixing function in place of the count's
// low bits, so that a goroutine reading keys in a cycle of four does not
// sample the same key each time. Updates (an existing key Set) are always
// buffered. A buffered hit counts 1<<shift in the hill climber's sample,
// the shift of the draw that buffered it (one for an update, never drawn),
// whatever the shift at its replay, so that its hit rate is the real one.
//
// Which stripe a goroutine uses is no evidence of concurrency: it is picked
// by a stack address, which differs between call paths of one goroutine (a
// hit through Get and an update through Set).

const (
	// sampleShiftOn is the sampling's shift: one hit in 4 is buffered
	// (one in 8 was no faster, bench/cache/sampling_abba.txt).
	sampleShiftOn = 2
	// sampleOffDrains is how many drains in a row with no failed try end
	// the contention's sampling.
	sampleOffDrains = 64
	// readMostlyHits is how many hits with no insert start the sampling.
	readMostlyHits = 4096
	// sampleShiftReadMostly is the shift while hits come with no insert:
	// one hit in 64 is buffered. It wins over sampleShiftOn when both
	// causes hold.
	sampleShiftReadMostly = 6
)

// readMostlyShift is the shift resampleLocked sets while hits come with no
// insert: sampleShiftReadMostly. It is a variable only so that an experiment
// can replay one workload under other shifts (readmostly_phases_internal_test.go).
var readMostlyShift uint32 = sampleShiftReadMostly

// sampleHit reports whether the hit that brought its stripe's hit count to
// count is buffered while sampling at shift (> 0): one count in 1<<shift.
func sampleHit(count uint64, shift uint32) bool {
	return mix.Mix64(count)>>(64-shift) == 0
}

// tryFailed records a failed lock try, the evidence of contention. It is a
// flag, written once between drains: a count would bounce its line between
// the cores on every failed try.
func (c *Cache[K, V]) tryFailed() {
	if !c.tries.failed.Load() {
		c.tries.failed.Store(true)
	}
}

// observeDrain updates the contention's evidence at a drain: whether a lock
// try failed since the last one. The caller holds c.mu.
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
	switch {
	case p.contendedDrains >= 2:
		p.contended = true
	case p.quietDrains >= sampleOffDrains:
		p.contended = false
	}
	c.resampleLocked()
}

// resampleLocked sets the sampling from its two causes, after a drain or a
// replay. The caller holds c.mu.
func (c *Cache[K, V]) resampleLocked() {
	p := &c.pol
	shift := uint32(0)
	if p.contended {
		shift = sampleShiftOn
	}
	if p.hitsSinceAdd >= readMostlyHits {
		shift = readMostlyShift
	}
	if shift != c.sampleShift.Load() {
		c.sampleShift.Store(shift)
	}
}
