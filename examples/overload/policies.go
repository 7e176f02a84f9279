package main

import (
	"math"
	"time"

	"github.com/tierkit/tierkit/shed"
)

// queueTimeout is the queue timeout given to every baseline that queues: a
// request that waited longer is dropped rather than served late, as shed does.
const queueTimeout = 50 * time.Millisecond

var epoch = time.Unix(0, 0)

// shedPolicy runs the real shed drain core on the virtual clock.
type shedPolicy struct {
	label string // "" for the default name
	cfg   shed.Config
	sched *shed.Scheduler[*request]
	drop  func(*request)
}

func (p *shedPolicy) name() string {
	if p.label != "" {
		return p.label
	}
	return "shed (DRR by cost)"
}

func (p *shedPolicy) reset(_ scenario, drop func(*request)) {
	s, err := shed.NewScheduler[*request](p.cfg)
	if err != nil {
		panic(err)
	}
	p.sched, p.drop = s, drop
}

func (p *shedPolicy) direct(now time.Duration, r *request, _ int) bool {
	if p.sched.Queued() > 0 {
		return false
	}
	p.sched.Admit(epoch.Add(now), r.name, r.prio, r.cost)
	return true
}

func (p *shedPolicy) offer(now time.Duration, r *request, _ int) bool {
	_, _, err := p.sched.Push(epoch.Add(now), r.name, r.prio, r.cost, r)
	return err == nil
}

func (p *shedPolicy) next(now time.Duration, _ int) *request {
	r, _, ok := p.sched.Pop(epoch.Add(now), math.MaxInt64, p.drop)
	if !ok {
		return nil
	}
	return r
}

func (p *shedPolicy) done(time.Duration, *request) {}

// deque is a FIFO of requests.
type deque struct {
	buf  []*request
	head int
}

func (q *deque) len() int        { return len(q.buf) - q.head }
func (q *deque) push(r *request) { q.buf = append(q.buf, r) }
func (q *deque) peek() *request  { return q.buf[q.head] }
func (q *deque) pop() *request {
	r := q.buf[q.head]
	q.buf[q.head] = nil
	q.head++
	if q.head == len(q.buf) {
		q.buf, q.head = q.buf[:0], 0
	}
	return r
}

// popLive pops the first request that has not waited past queueTimeout,
// dropping the others.
func (q *deque) popLive(now time.Duration, drop func(*request)) *request {
	for q.len() > 0 {
		r := q.pop()
		if now-r.arrive <= queueTimeout {
			return r
		}
		drop(r)
	}
	return nil
}

// fifoPolicy is one global FIFO queue.
type fifoPolicy struct {
	max  int
	q    deque
	drop func(*request)
}

func (p *fifoPolicy) name() string                          { return "global FIFO" }
func (p *fifoPolicy) reset(_ scenario, drop func(*request)) { p.q, p.drop = deque{}, drop }
func (p *fifoPolicy) direct(time.Duration, *request, int) bool {
	return p.q.len() == 0
}
func (p *fifoPolicy) offer(_ time.Duration, r *request, _ int) bool {
	if p.q.len() >= p.max {
		return false
	}
	p.q.push(r)
	return true
}
func (p *fifoPolicy) next(now time.Duration, _ int) *request { return p.q.popLive(now, p.drop) }
func (p *fifoPolicy) done(time.Duration, *request)           {}

// rrPolicy is per-tenant queues served round robin by count.
type rrPolicy struct {
	max    int
	queues []deque
	active deque // tenants with queued requests, as requests carrying the tenant
	queued int
	drop   func(*request)
}

func (p *rrPolicy) name() string { return "per-tenant RR by count" }
func (p *rrPolicy) reset(s scenario, drop func(*request)) {
	p.queues = make([]deque, s.Normal+s.Noisy)
	p.active, p.queued, p.drop = deque{}, 0, drop
}
func (p *rrPolicy) direct(time.Duration, *request, int) bool { return p.queued == 0 }
func (p *rrPolicy) offer(_ time.Duration, r *request, _ int) bool {
	q := &p.queues[r.tenant]
	if q.len() >= p.max {
		return false
	}
	if q.len() == 0 {
		p.active.push(r) // stands for its tenant in the ring
	}
	q.push(r)
	p.queued++
	return true
}
func (p *rrPolicy) next(now time.Duration, _ int) *request {
	for p.active.len() > 0 {
		t := p.active.pop().tenant
		q := &p.queues[t]
		n := q.len()
		r := q.popLive(now, p.drop)
		p.queued -= n - q.len()
		if q.len() > 0 {
			p.active.push(q.peek())
		}
		if r != nil {
			return r
		}
	}
	return nil
}
func (p *rrPolicy) done(time.Duration, *request) {}

// partitionPolicy is percentage partitions as Netflix concurrency-limits'
// AbstractPartitionedLimiter does them, partitioned by priority: a request is
// rejected only when every slot is busy and its partition already holds its
// percentage of the limit. Since a slot cannot be exceeded here, a request whose
// partition is under its share waits in a short per-partition FIFO (at most its
// share less its requests in service: together they never pass the share) for
// the next free slot, which goes to the partition furthest below its
// share.
type partitionPolicy struct {
	pct   [2]float64
	slots int
	busy  [2]int
	q     [2]deque
	drop  func(*request)
}

func (p *partitionPolicy) name() string { return "Netflix partitions by priority" }
func (p *partitionPolicy) reset(s scenario, drop func(*request)) {
	p.slots, p.busy, p.q, p.drop = s.Slots, [2]int{}, [2]deque{}, drop
}

// share is the partition's limit as concurrency-limits computes it:
// max(1, ceil(slots x percent)), so that the partitions together hold at least
// every slot.
func (p *partitionPolicy) share(prio int) int {
	return max(1, int(math.Ceil(p.pct[prio]*float64(p.slots))))
}
func (p *partitionPolicy) direct(_ time.Duration, r *request, _ int) bool {
	if p.q[0].len()+p.q[1].len() > 0 {
		return false
	}
	p.busy[r.prio]++
	return true
}
func (p *partitionPolicy) offer(_ time.Duration, r *request, _ int) bool {
	if p.busy[r.prio]+p.q[r.prio].len() >= p.share(r.prio) {
		return false
	}
	p.q[r.prio].push(r)
	return true
}
func (p *partitionPolicy) next(now time.Duration, _ int) *request {
	for range 2 {
		best := -1
		for i := range 2 {
			if p.q[i].len() == 0 {
				continue
			}
			if best < 0 || p.busy[i]*p.share(best) < p.busy[best]*p.share(i) {
				best = i
			}
		}
		if best < 0 {
			return nil
		}
		if r := p.q[best].popLive(now, p.drop); r != nil {
			p.busy[best]++
			return r
		}
	}
	return nil
}
func (p *partitionPolicy) done(_ time.Duration, r *request) { p.busy[r.prio]-- }

// policies returns every policy of the comparison, fresh.
func policies() []policy {
	return []policy{
		&shedPolicy{cfg: shed.Config{
			Priorities: 2, MaxQueue: 64, MaxQueueCost: 256,
			QueueDeadline: queueTimeout, StandingDeadline: 10 * time.Millisecond,
		}},
		&fifoPolicy{max: 2048},
		&rrPolicy{max: 64},
		&apfPolicy{queues: 64, hand: 8, queueLen: 50},
		&apfPolicy{queues: 128, hand: 8, queueLen: 50},
		// APF's shipped configuration of the levels tenants' requests
		// land in (workload-low, global-default): hands of 6, dealt as
		// under the suggested FlowSchema that matches users' requests,
		// global-default (its level: 128/6/50). The empty schema name
		// of the other rows is none APF can have.
		&apfPolicy{queues: 128, hand: 6, queueLen: 50, schema: "global-default"},
		&partitionPolicy{pct: [2]float64{0.7, 0.3}},
		// The shed configuration of the real mode, with the baselines'
		// queue timeout: tenants under their share in arrival order, a
		// flood's excess shed on arrival.
		&shedPolicy{label: "shed, real mode's options", cfg: realShed(queueTimeout)},
	}
}
