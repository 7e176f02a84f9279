package main

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"time"
)

// apfServiceEstimate is the service time APF charges a request when it is
// dispatched (the queueset's estimatedServiceDuration), corrected by the
// actual service time when it finishes.
const apfServiceEstimate = 3 * time.Millisecond

// apfPolicy is shuffle-sharded fair queuing as the Kubernetes API Priority and
// Fairness filter does it (the queueset package): each tenant (flow) is dealt a
// hand of `hand` queues out of `queues` by hashing its name, a request joins
// the shortest queue of its hand (bounded by queueLen, 50 as in APF's default,
// rejected when that queue is full), and the queues share the slots by fair
// queuing on a virtual clock R, as APF's queueset does it:
//
//   - R advances at min(seats requested, slots) / active queues per second,
//     a queue being active while it has requests waiting or executing;
//   - a queue that goes from idle to a waiting request starts at R;
//   - the next slot goes to the queue with waiting requests whose next
//     dispatch R plus the request's estimated work (one seat for
//     apfServiceEstimate) is least, ties to the queue after the last served;
//   - a dispatch adds the estimated work to the queue's next dispatch R, and
//     the request's completion corrects it by the actual service time, so
//     queues are served in proportion to service time, not request count;
//   - a queue's next dispatch R is never earlier than the R at which its
//     oldest waiting request arrived (APF's anti-windup bound).
//
// Every request occupies one seat. A request that waited past queueTimeout is
// dropped when it reaches the head of its queue or when a request of a flow
// whose hand holds its queue arrives, whichever comes first.
type apfPolicy struct {
	queues, hand, queueLen int
	// schema is the name of the FlowSchema the tenants' requests match, which
	// APF hashes with the flow distinguisher (apfFlowHash): "" for the
	// experiment's own configurations, a name APF ships for the row that
	// stands for APF as it ships.
	schema string

	unit      time.Duration // service time of one unit of cost
	slots     int
	qs        []apfQueue
	hands     [][]int
	queued    int // requests waiting, all queues
	executing int // requests executing, all queues
	active    int // queues with requests waiting or executing
	r         float64
	lastNow   time.Duration
	robin     int
	enqueues  int // requests placed, for the offset of the next hand's visit
	drop      func(*request)
}

// apfQueue is one queue of the queue set.
type apfQueue struct {
	waiting   deque
	executing int
	nextR     float64 // virtual time (seconds) of the next dispatch
}

func (q *apfQueue) active() bool { return q.waiting.len() > 0 || q.executing > 0 }

func (p *apfPolicy) name() string { return "APF shuffle-shard " + itoa(p.queues) + "/" + itoa(p.hand) }
func (p *apfPolicy) reset(s scenario, drop func(*request)) {
	p.unit, p.slots = s.Unit, s.Slots
	p.qs = make([]apfQueue, p.queues)
	p.hands = make([][]int, s.Normal+s.Noisy)
	p.queued, p.executing, p.active, p.r, p.lastNow, p.robin, p.enqueues, p.drop = 0, 0, 0, 0, 0, p.queues-1, 0, drop
}

// dealHand deals `hand` distinct queues from the hash of the tenant's name, as
// APF's shufflesharding.Dealer does (apfDeal).
func (p *apfPolicy) dealHand(tenant int, name string) []int {
	if h := p.hands[tenant]; h != nil {
		return h
	}
	h := apfDeal(apfSchemaFlowHash(p.schema, name), p.queues, p.hand)
	p.hands[tenant] = h
	return h
}

// apfDeal is shufflesharding.Dealer.Deal: it draws hand remainders from v,
// the i-th modulo deck-i, then turns each into a card not dealt before by
// counting it up past the cards of the earlier remainders it reaches. The
// cards come in that order, which is the order shuffleShardLocked visits them
// from its offset. (A Fisher-Yates swap on the same remainders deals other
// hands from the same hash.)
func apfDeal(v uint64, deck, hand int) []int {
	rem := make([]int, hand)
	for i := range rem {
		n := uint64(deck - i)
		rem[i] = int(v % n)
		v /= n
	}
	h := make([]int, hand)
	for i := range h {
		card := rem[i]
		for j := i; j > 0; j-- {
			if card >= rem[j-1] {
				card++
			}
		}
		h[i] = card
	}
	return h
}

// apfFlowHash is apfSchemaFlowHash under the empty schema name, the one the
// experiment's own configurations use.
func apfFlowHash(name string) uint64 { return apfSchemaFlowHash("", name) }

// apfSchemaFlowHash is APF's hash of a flow (hashFlowID): the first 8 bytes,
// little endian, of the SHA-256 of the flow schema's name, a zero byte and the
// flow distinguisher. Every bit of it depends on every byte of the name, so
// the hands of tenants whose names differ in one character are independent.
func apfSchemaFlowHash(schema, name string) uint64 {
	h := sha256.New()
	h.Write([]byte(schema))
	h.Write([]byte{0})
	h.Write([]byte(name))
	return binary.LittleEndian.Uint64(h.Sum(nil))
}

// sync advances the virtual clock to now.
func (p *apfPolicy) sync(now time.Duration) {
	dt := now - p.lastNow
	p.lastNow = now
	if dt <= 0 || p.active == 0 {
		return
	}
	ratio := math.Min(float64(p.executing+p.queued), float64(p.slots)) / float64(p.active)
	p.r += ratio * dt.Seconds()
}

// enqueue puts r in the shortest queue of its hand; false if that queue is full.
// APF removes a waiting request when its wait times out, so the queues of the
// hand are rid of their timed-out requests before they are compared. As in
// APF's shuffleShardLocked, the hand is visited from an offset that advances
// with every request, and the first of the shortest queues visited wins.
func (p *apfPolicy) enqueue(now time.Duration, r *request) bool {
	p.sync(now)
	best := -1
	hand := p.dealHand(r.tenant, r.name)
	offset := p.enqueues % len(hand)
	p.enqueues++
	for i := range hand {
		q := hand[(offset+i)%len(hand)]
		p.expire(now, &p.qs[q])
		if best < 0 || p.qs[q].waiting.len() < p.qs[best].waiting.len() {
			best = q
		}
	}
	q := &p.qs[best]
	if q.waiting.len() >= p.queueLen {
		return false
	}
	if !q.active() {
		q.nextR = p.r
		p.active++
	}
	r.apfQueue, r.apfR = best, p.r
	q.waiting.push(r)
	p.queued++
	// As timeoutOldRequestsAndRejectOrEnqueueLocked does: a queue that only
	// had requests executing may have fallen behind R meanwhile.
	p.bound(q)
	return true
}

// expire drops the requests of q that waited past queueTimeout (the oldest
// first: they are in arrival order).
func (p *apfPolicy) expire(now time.Duration, q *apfQueue) {
	for q.waiting.len() > 0 && now-q.waiting.peek().arrive > queueTimeout {
		p.drop(q.waiting.pop())
		p.queued--
		if !q.active() {
			p.active--
		}
	}
	p.bound(q)
}

// bound applies APF's anti-windup bound to queue q.
func (p *apfPolicy) bound(q *apfQueue) {
	if q.waiting.len() > 0 {
		q.nextR = max(q.nextR, q.waiting.peek().apfR)
	}
}

// dispatch starts the head of the queue with the least virtual finish time,
// dropping heads that waited too long; nil if nothing waits.
func (p *apfPolicy) dispatch(now time.Duration) *request {
	for p.queued > 0 {
		best := p.leastFinish()
		q := &p.qs[best]
		r := q.waiting.pop()
		p.queued--
		if now-r.arrive > queueTimeout {
			p.drop(r)
			if !q.active() {
				p.active--
			}
			p.bound(q)
			continue
		}
		p.robin = best
		q.executing++
		p.executing++
		q.nextR += apfWork(r)
		p.bound(q)
		return r
	}
	return nil
}

// leastFinish returns the queue with waiting requests whose oldest request
// has the least virtual finish time: the queue's next dispatch R plus the
// request's work, as APF's findDispatchQueueToBoundLocked computes it. Queues
// are visited from the one after the last served, and only a strictly smaller
// finish time displaces the first found, so ties go round robin. Some queue
// must have a waiting request.
func (p *apfPolicy) leastFinish() int {
	best, least := -1, math.Inf(1)
	for k := 1; k <= len(p.qs); k++ {
		i := (p.robin + k) % len(p.qs)
		q := &p.qs[i]
		if q.waiting.len() == 0 {
			continue
		}
		if finish := q.nextR + apfWork(q.waiting.peek()); finish < least {
			best, least = i, finish
		}
	}
	return best
}

// apfWork is the work, in seat-seconds of virtual time, that APF charges r
// when it is dispatched (the request's totalWork): its seats times
// apfServiceEstimate. Every request takes one seat here, so the work is the
// same for all and the least finish time is the least next dispatch R; the
// sum is kept so the choice reads as APF's.
func apfWork(*request) float64 { return apfServiceEstimate.Seconds() }

func (p *apfPolicy) direct(now time.Duration, r *request, _ int) bool {
	if p.queued > 0 {
		return false
	}
	// Nothing waits and a slot is free: APF enqueues the request and
	// dispatches it at once.
	p.enqueue(now, r)
	p.dispatch(now)
	return true
}

func (p *apfPolicy) offer(now time.Duration, r *request, _ int) bool {
	return p.enqueue(now, r)
}

func (p *apfPolicy) next(now time.Duration, _ int) *request {
	p.sync(now)
	return p.dispatch(now)
}

func (p *apfPolicy) done(now time.Duration, r *request) {
	p.sync(now)
	q := &p.qs[r.apfQueue]
	q.executing--
	p.executing--
	if !q.active() {
		p.active--
	}
	// APF corrects by seats × (estimate − actual); one seat here.
	actual := time.Duration(r.cost) * p.unit
	q.nextR -= (apfServiceEstimate - actual).Seconds()
	p.bound(q)
}
