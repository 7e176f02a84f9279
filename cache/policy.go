package cache

import (
	"runtime"

	"github.com/tierkit/tierkit/internal/mix"
)

// Hill-climber and admission constants, from Caffeine's BoundedLocalCache.
const (
	admitHashDoSThreshold = 6      // candidate frequency above which a rejected candidate may still win at random
	climberStepPercent    = 0.0625 // initial (and restart) step: 6.25% of capacity
	climberStepDecay      = 0.98   // step multiplier after each sample that did not restart
	climberRestart        = 0.05   // hit-rate change that restarts the climb with a full step

	// climberMinSample is the fewest requests per hill-climber sample. Caffeine
	// samples every 10x capacity requests, which for a small cache is too few:
	// the hit rate of 2,500 requests (capacity 250) moves by about 0.9 points by
	// chance alone, more than one step changes it, so the climber walks at
	// random. With at least 20,000 requests the noise is about 0.3 points. On
	// the ARC OLTP trace this raised the hit ratio at capacities 250, 500 and
	// 1000 by 0.6, 1.5 and 0.5 points, on the LIRS loop trace at 256 and 512
	// by 0.8 and 1.1, and left larger caches unchanged (mean of 6 seeds).
	climberMinSample = 20_000

	// climberSettleDiv: after the window moves, the first 1/climberSettleDiv
	// of a sample's length is not counted in the next sample. The requests
	// right after a move still meet the entries the move shifted between the
	// window and main, so they measure the move's transition more than the
	// new split, and on a trace whose hit rate rises anyway (ARC's OLTP) that
	// transition and the trend kept the climber walking the way it had
	// started: over 64 seeds of the key hash, 9 landed 1.4-1.7 points under
	// the mean on OLTP/500 and 4 on OLTP/1000; none does with the settling
	// quarter, which costs 0.1-0.2 points of the mean on OLTP/250, P3/25k
	// and loop/512 (bench/cache/README.md, "Thirty-fourth session").
	climberSettleDiv = 4
)

// policy is an adaptive W-TinyLFU eviction policy (Einziger, Eytan, Friedman and
// Manes, "Adaptive Software Cache Management", Middleware 2018), the design of
// Caffeine, otter and theine: new entries enter a small LRU window; an entry
// leaving the window competes with the probation victim of the segmented-LRU main
// space and is admitted only if the frequency sketch estimates it more popular.
// A hill climber resizes the window every sample (10x capacity requests, at
// least climberMinSample, counted from a quarter of that after the last
// move: climberSettleDiv) in the direction that improved the hit rate, so
// recency-biased traces get a large window and frequency-biased ones a small
// one.
//
// Capacity counts entries. Not safe for concurrent use: the cache's policy lock
// guards every field and every node's queue links. A node not in a queue
// (queueNone) is not in the policy.
type policy[K comparable] struct {
	window    list[K]
	probation list[K]
	protected list[K]
	sketch    sketch
	capacity  int
	size      int

	hitsInSample, missesInSample int
	settling                     bool // the window moved: the sample's counts restart after climberSettleDiv of its length
	prevHitRate                  float64
	step                         float64 // next window change, in entries (signed)
	adjust                       int     // window change decided by the last sample

	// contendedDrains and quietDrains count the drains in a row that
	// followed a failed lock try, and that did not, and contended is the
	// verdict they give (observeDrain).
	contendedDrains, quietDrains int
	contended                    bool
	// hitsSinceAdd counts the hits replayed (weighted) since the last
	// insert, up to readMostlyHits (resampleLocked).
	hitsSinceAdd int

	rng uint64 // state of the admission jitter (splitmix64); seeded by init

	// evicted collects the nodes the last operation evicted; the caller drains it.
	evicted []*node[K]
}

// init sets up an empty policy of capacity entries; seed drives the admission
// jitter, so a given seed and access sequence always evict the same nodes.
func (p *policy[K]) init(capacity int, seed uint64) {
	p.capacity = capacity
	p.rng = seed
	window := max(1, int(float64(capacity)*0.01))
	p.window.init(queueWindow, window)
	p.probation.init(queueProbation, 0)
	p.protected.init(queueProtected, int(float64(capacity-window)*0.8))
	p.step = -float64(capacity) * climberStepPercent
}

// add inserts a new node (in no queue), evicts down to capacity and adapts the
// window. The sketch is sized lazily, once the cache is half full.
func (p *policy[K]) add(n *node[K]) {
	if p.size >= p.capacity>>1 {
		p.sketch.ensureCapacity(p.capacity)
	}
	p.sketch.increment(n.hash)
	p.missesInSample++
	p.hitsSinceAdd = 0
	p.size++
	p.window.pushFront(n)
	p.evict()
	p.climb()
}

// access records a hit on n, which stands for weight hits in the climber's
// sample (1, or 1<<shift for a hit drawn one in 1<<shift: sample.go). A
// node no longer in the policy (evicted or removed since the hit was
// buffered) counts in the sketch only.
func (p *policy[K]) access(n *node[K], weight int) {
	// A hot key's counters saturate soon after each reset; skipping their
	// increments changes no count and spares the loads of its block.
	if n.saturated != p.sketch.epoch && p.sketch.increment(n.hash) {
		n.saturated = p.sketch.epoch
	}
	p.hitsInSample += weight
	if p.hitsSinceAdd < readMostlyHits {
		p.hitsSinceAdd += weight
	}
	switch n.queue {
	case queueWindow:
		p.window.moveToFront(n)
	case queueProbation:
		// Promotion may overfill protected: climb demotes.
		p.probation.remove(n)
		p.protected.pushFront(n)
	case queueProtected:
		p.protected.moveToFront(n)
	}
}

// warm loads what replaying hits on nodes will read (each node, its queue
// neighbours and its sketch block) in loads that do not depend on one another,
// so that the CPU overlaps their cache misses; access then finds them in the
// cache. Replaying a buffer of hits spread over a large cache otherwise waits
// for each miss in turn: a node, then its neighbours, then its counters.
func (p *policy[K]) warm(ns []*node[K]) {
	var sum uint64
	for _, n := range ns {
		sum += n.hash
	}
	for _, n := range ns {
		if n.prev != nil {
			sum += uint64(n.prev.queue) + uint64(n.next.queue)
		}
		if p.sketch.table != nil && n.saturated != p.sketch.epoch {
			sum += p.sketch.block(n.hash)[0]
		}
	}
	runtime.KeepAlive(sum) // so that the loads are not dropped
}

// remove takes n out of the policy (invalidation or delete), if it is still in.
func (p *policy[K]) remove(n *node[K]) {
	switch n.queue {
	case queueNone:
		return
	case queueWindow:
		p.window.remove(n)
	case queueProbation:
		p.probation.remove(n)
	case queueProtected:
		p.protected.remove(n)
	}
	p.size--
}

// setCapacity changes the capacity, scaling the window and protected targets,
// and evicts down to it.
func (p *policy[K]) setCapacity(capacity int) {
	if capacity == p.capacity {
		return
	}
	ratio := float64(p.window.cap) / float64(p.capacity)
	if p.window.cap <= 1 {
		// A window at its floor of one entry says nothing of the split at
		// another size (it is all of a cache of one): start from init's 1%.
		ratio = 0.01
	}
	p.capacity = capacity
	p.window.cap = max(1, min(capacity, int(float64(capacity)*ratio)))
	p.protected.cap = int(float64(capacity-p.window.cap) * 0.8)
	p.step = -float64(capacity) * climberStepPercent
	p.adjust = 0
	p.demoteFromProtected()
	p.evict()
}

func (p *policy[K]) evictNode(n *node[K]) {
	p.remove(n)
	p.evicted = append(p.evicted, n)
}

func (p *policy[K]) demoteFromProtected() {
	for p.protected.len > p.protected.cap {
		p.probation.pushFront(p.protected.popBack())
	}
}

func (p *policy[K]) evict() {
	first := p.evictFromWindow()
	p.evictFromMain(first)
}

// evictFromWindow moves the window's overflow to the front of probation and
// returns the oldest node moved (the first candidate), or nil.
func (p *policy[K]) evictFromWindow() *node[K] {
	var first *node[K]
	for p.window.len > p.window.cap {
		n := p.window.popBack()
		if first == nil {
			first = n
		}
		p.probation.pushFront(n)
	}
	return first
}

// evictFromMain evicts until the size fits, pitting candidates (the nodes just
// moved out of the window, oldest first) against victims (probation's back, then
// protected's, then the window's) and keeping the more frequent of each pair.
func (p *policy[K]) evictFromMain(candidate *node[K]) {
	victimQueue, candidateQueue := queueProbation, queueProbation
	victim := p.probation.back()
	for p.size > p.capacity {
		if candidate == nil && candidateQueue == queueProbation {
			candidate, candidateQueue = p.window.back(), queueWindow
		}
		if candidate == nil && victim == nil {
			switch victimQueue {
			case queueProbation:
				victim, victimQueue = p.protected.back(), queueProtected
				continue
			case queueProtected:
				victim, victimQueue = p.window.back(), queueWindow
				continue
			}
			return
		}
		switch {
		case victim == nil:
			next := p.newer(candidate)
			p.evictNode(candidate)
			candidate = next
		case candidate == nil:
			next := p.newer(victim)
			p.evictNode(victim)
			victim = next
		case victim == candidate:
			victim = p.newer(victim)
			p.evictNode(candidate)
			candidate = nil
		case p.admit(candidate.hash, victim.hash):
			next := p.newer(victim)
			p.evictNode(victim)
			victim = next
			candidate = p.newer(candidate)
		default:
			next := p.newer(candidate)
			p.evictNode(candidate)
			candidate = next
		}
	}
}

// newer returns the neighbour of n towards the front of n's queue, or nil.
func (p *policy[K]) newer(n *node[K]) *node[K] {
	switch n.queue {
	case queueWindow:
		return p.window.newer(n)
	case queueProbation:
		return p.probation.newer(n)
	case queueProtected:
		return p.protected.newer(n)
	}
	return nil
}

// admit reports whether the candidate should replace the victim. A warm
// candidate that loses still wins 1 time in 128, so an attacker cannot pin a hot
// victim by flooding the sketch (Caffeine's HashDoS defence).
func (p *policy[K]) admit(candidate, victim uint64) bool {
	cf, vf := p.sketch.frequency(candidate), p.sketch.frequency(victim)
	if cf > vf {
		return true
	}
	return cf >= admitHashDoSThreshold && p.random()&127 == 0
}

// climb adapts the window: once per sample, it moves the split between window
// and main space by a step in the direction that raised the hit rate (Caffeine's
// hill climber); between samples it only demotes protected overflow.
func (p *policy[K]) climb() {
	p.adjustStep()
	p.demoteFromProtected()
	switch {
	case p.adjust > 0:
		p.growWindow()
	case p.adjust < 0:
		p.shrinkWindow()
	}
}

// adjustStep sets adjust from the hit rate of a completed sample; between
// samples adjust keeps what the last move could not do.
func (p *policy[K]) adjustStep() {
	if !p.sketch.initialized() {
		p.prevHitRate, p.hitsInSample, p.missesInSample = 0, 0, 0
		return
	}
	total := p.hitsInSample + p.missesInSample
	sample := max(p.sketch.sampleSize, climberMinSample)
	if p.settling {
		if total >= sample/climberSettleDiv {
			p.settling = false
			p.hitsInSample, p.missesInSample = 0, 0
		}
		return
	}
	if total < sample {
		return
	}
	if p.size < p.capacity>>1 {
		// Not evicting: the hit rate says nothing about the split.
		p.hitsInSample, p.missesInSample = 0, 0
		return
	}
	rate := float64(p.hitsInSample) / float64(total)
	delta := rate - p.prevHitRate
	amount := p.step
	if delta < 0 {
		amount = -p.step
	}
	next := amount * climberStepDecay
	if delta >= climberRestart || delta <= -climberRestart {
		next = float64(p.capacity) * climberStepPercent
		if amount < 0 {
			next = -next
		}
	}
	p.prevHitRate = rate
	p.adjust = int(amount)
	p.step = next
	p.hitsInSample, p.missesInSample = 0, 0
	p.settling = true
}

// growWindow moves up to adjust nodes from main (probation first) to the
// window, with the matching share of protected's target.
func (p *policy[K]) growWindow() {
	if p.protected.cap == 0 {
		p.adjust = 0
		return
	}
	quota := min(p.adjust, p.protected.cap)
	p.protected.cap -= quota
	p.window.cap += quota
	p.demoteFromProtected()
	for ; quota > 0; quota-- {
		n := p.probation.back()
		if n == nil {
			n = p.protected.back()
		}
		if n == nil {
			break
		}
		if n.queue == queueProbation {
			p.probation.remove(n)
		} else {
			p.protected.remove(n)
		}
		p.window.pushFront(n)
	}
	// Give back what could not be moved, and try it again next time.
	p.protected.cap += quota
	p.window.cap -= quota
	p.adjust = quota
}

// shrinkWindow moves up to -adjust nodes from the window to probation, keeping
// a window of at least one.
func (p *policy[K]) shrinkWindow() {
	if p.window.cap <= 1 {
		p.adjust = 0
		return
	}
	quota := min(-p.adjust, p.window.cap-1)
	p.protected.cap += quota
	p.window.cap -= quota
	for ; quota > 0; quota-- {
		n := p.window.popBack()
		if n == nil {
			break
		}
		p.probation.pushFront(n)
	}
	p.protected.cap -= quota
	p.window.cap += quota
	p.adjust = -quota
}

// random returns the next value of the policy's own generator (splitmix64), so
// that the admission jitter is reproducible from the seed given to init.
func (p *policy[K]) random() uint64 {
	p.rng += 0x9e3779b97f4a7c15
	return mix.Mix64(p.rng)
}
