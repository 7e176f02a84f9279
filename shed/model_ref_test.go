package shed_test

import (
	"math"
	"math/big"
	"slices"
	"time"

	"github.com/tierkit/tierkit/shed"
)

// refModel is an executable reference of the policy that shed's package doc and
// Scheduler's doc describe, written from the docs and deliberately naive: plain
// slices, no wheel, no skipped rounds, no deferred bookkeeping. Times are
// nanoseconds since the first time the model saw. model_test.go drives it and a
// real Scheduler with the same operations and compares what they do.
type refModel struct {
	cfg     refConfig
	tenants map[string]*refTenant
	fresh   []*refTenant // tenants under their share, served first
	old     []*refTenant // tenants over their share
	latest  int64        // latest arrival, admission or refusal (stamps; Stats' ShareLevel, as its doc says)
	created string       // the tenant created last, for the caller to clear

	// share window: opened by the first serve past the previous one's end
	winID    int
	winStart int64
	// the most cost per unit of weight one tenant got from the old list, as
	// its cost and weight (oldCost 0: the old list was served nothing), and
	// the same from the fresh list
	oldCost, oldW     int64
	freshCost, freshW int64
	levelCost, levelW int64 // the level: levelCost per levelW units of weight; 0 for none
	lastServed        int64 // the latest time a request was served
	overShed, overLvl int64
	total             shed.BucketStats
	reclaimed         int64
}

type refConfig struct {
	priorities               int
	quantum                  int64
	weights                  map[string]int
	maxQueue                 int
	maxQueueCost             int64
	queueDL, standingDL, win int64
	freshArrival, onArrival  bool
}

func refConfigOf(c shed.Config) refConfig {
	or := func(v, d int64) int64 {
		if v == 0 {
			return d
		}
		return v
	}
	r := refConfig{
		priorities:   int(or(int64(c.Priorities), shed.DefaultPriorities)),
		quantum:      or(c.Quantum, shed.DefaultQuantum),
		weights:      c.Weights,
		maxQueue:     int(or(int64(c.MaxQueue), shed.DefaultMaxQueue)),
		maxQueueCost: or(c.MaxQueueCost, shed.DefaultMaxQueueCost),
		queueDL:      or(int64(c.QueueDeadline), int64(shed.DefaultQueueDeadline)),
		standingDL:   or(int64(c.StandingDeadline), int64(shed.DefaultStandingDeadline)),
		win:          or(int64(c.OverShareWindow), int64(shed.DefaultOverShareWindow)),
		freshArrival: c.FreshArrivalOrder,
		onArrival:    c.ShedOnArrival,
	}
	r.standingDL = min(r.standingDL, r.queueDL)
	return r
}

type refReq struct {
	id       int
	cost     int64
	enq, dl  int64
	standing bool // StandingDeadline applied
}

type refBucket struct {
	reqs      []refReq
	lastEmpty int64 // the last time the bucket was empty
	st        shed.BucketStats
}

func (b *refBucket) cost() (c int64) {
	for _, r := range b.reqs {
		c += r.cost
	}
	return c
}

type refTenant struct {
	name      string
	buckets   []*refBucket
	deficit   int64
	overUntil int64
	overAt    int64 // the latest mark
	win       int
	winCost   int64
	listed    bool
	inTurn    bool // this visit's quantum was granted
	visiting  bool
	visitAt   int64
	seen      int64
}

func newRefModel(c shed.Config) *refModel {
	return &refModel{cfg: refConfigOf(c), tenants: map[string]*refTenant{}}
}

// setConfig applies c. A lowered deadline cuts each queued request's to its
// enqueue time plus the new deadline of its kind, never extending one and
// never below the deadline of the request ahead of it in its bucket. A
// change that lowers neither deadline leaves every queued deadline alone,
// even one raised to that of a request ahead that has left since.
//
// A changed OverShareWindow keeps the level's rate: the level is scaled to the
// new length (its cost per the weight it was measured on, rounded down, at
// least 1 if positive) and the window restarts at the latest
// arrival, admission, refusal or serve, after closing a window that had run
// its old length. A lowered one ends each mark at its time plus the new window.
func (m *refModel) setConfig(c shed.Config) {
	prev := m.cfg
	next := refConfigOf(c)
	if next.win != prev.win && m.winID != 0 {
		at := max(m.latest, m.lastServed)
		if at-m.winStart >= prev.win {
			m.closeWindow(at)
		}
		if m.levelCost > 0 {
			l := new(big.Int).Mul(big.NewInt(m.levelCost), big.NewInt(next.win))
			l.Quo(l, big.NewInt(prev.win))
			m.levelCost = math.MaxInt64
			if l.IsInt64() {
				m.levelCost = max(1, l.Int64())
			}
		}
		m.winID++
		m.winStart, m.oldCost, m.freshCost = at, 0, 0
	}
	if next.win < prev.win {
		for _, t := range m.tenants {
			t.overUntil = min(t.overUntil, t.overAt+next.win)
		}
	}
	m.cfg = next
	if m.cfg.queueDL >= prev.queueDL && m.cfg.standingDL >= prev.standingDL {
		return
	}
	for _, t := range m.tenants {
		for _, b := range t.buckets {
			for i := range b.reqs {
				r := &b.reqs[i]
				d := m.cfg.queueDL
				if r.standing {
					d = m.cfg.standingDL
				}
				r.dl = min(r.dl, r.enq+d)
				if i > 0 {
					r.dl = max(r.dl, b.reqs[i-1].dl)
				}
			}
		}
	}
}

func (m *refModel) weight(name string) int64 {
	if w, ok := m.cfg.weights[name]; ok {
		return int64(w)
	}
	return 1
}

func (m *refModel) see(at int64) { m.latest = max(m.latest, at) }

func (m *refModel) tenant(name string, at int64) *refTenant {
	t := m.tenants[name]
	if t == nil {
		t = &refTenant{name: name}
		for range m.cfg.priorities {
			t.buckets = append(t.buckets, &refBucket{})
		}
		m.tenants[name] = t
		m.created = name
	}
	t.seen = at
	return t
}

func (t *refTenant) bucket(prio int) (int, *refBucket) {
	p := max(min(prio, len(t.buckets)-1), 0)
	return p, t.buckets[p]
}

func (t *refTenant) over(at int64) bool { return at < t.overUntil }

func (t *refTenant) queued() (n int) {
	for _, b := range t.buckets {
		n += len(b.reqs)
	}
	return n
}

func (m *refModel) queued() (n int) {
	for _, t := range m.tenants {
		n += t.queued()
	}
	return n
}

// markOver: a tenant is over its share for OverShareWindow after a shed (or
// once served more than the level).
func (m *refModel) markOver(t *refTenant, at int64, byLevel bool) {
	if !t.over(at) {
		if byLevel {
			m.overLvl++
		} else {
			m.overShed++
		}
	}
	t.overUntil, t.overAt = at+m.cfg.win, at
}

func (m *refModel) shedCount(t *refTenant, b *refBucket, r shed.Reason, at int64) {
	for _, st := range []*shed.BucketStats{&b.st, &m.total} {
		switch r {
		case shed.ReasonBucketFull:
			st.ShedBucketFull++
		case shed.ReasonQueueDeadline:
			st.ShedQueueDeadline++
		case shed.ReasonClosed:
			st.ShedClosed++
		case shed.ReasonNoCapacity:
			st.ShedNoCapacity++
		case 0:
			st.Canceled++
		}
	}
	if r == shed.ReasonBucketFull || r == shed.ReasonQueueDeadline {
		m.markOver(t, at, false)
	}
}

// levelAt is the level in force at at, a cost per a weight: none (0) once at
// is past the window after the level's own (nothing over its share was
// backlogged then).
func (m *refModel) levelAt(at int64) (cost, weight int64) {
	if m.winID == 0 || at-m.winStart >= 2*m.cfg.win || m.levelCost == 0 {
		return 0, 1
	}
	return m.levelCost, m.levelW
}

// moreThan reports whether c1/w1 > c2/w2.
func moreThan(c1, w1, c2, w2 int64) bool {
	l := new(big.Int).Mul(big.NewInt(c1), big.NewInt(w2))
	return l.Cmp(new(big.Int).Mul(big.NewInt(c2), big.NewInt(w1))) > 0
}

func (m *refModel) admit(at int64, name string, prio int, cost int64) {
	m.see(at)
	t := m.tenant(name, at)
	_, b := t.bucket(prio)
	for _, st := range []*shed.BucketStats{&b.st, &m.total} {
		st.Admitted++
		st.AdmittedCost += cost
	}
}

// refuse counts a request refused without queueing: a shed like any other
// (bucket full or queue deadline mark the tenant over its share).
func (m *refModel) refuse(at int64, name string, prio int, r shed.Reason) {
	m.see(at)
	t := m.tenant(name, at)
	_, b := t.bucket(prio)
	m.shedCount(t, b, r, at)
}

// push returns the request's deadline, or the reason it was shed; onArrival
// tells a deadline shed on arrival.
func (m *refModel) push(at int64, name string, prio int, cost int64, id int) (dl int64, shedR shed.Reason) {
	cost = max(cost, 1)
	m.see(at)
	t := m.tenant(name, at)
	p, b := t.bucket(prio)
	if len(b.reqs) > 0 && (len(b.reqs)+1 > m.cfg.maxQueue || b.cost()+cost > m.cfg.maxQueueCost) {
		m.shedCount(t, b, shed.ReasonBucketFull, at)
		return 0, shed.ReasonBucketFull
	}
	d, standing := m.cfg.queueDL, false
	if len(b.reqs) == 0 {
		b.lastEmpty = at
	} else if at-b.lastEmpty > m.cfg.queueDL && t.over(at) {
		d, standing = m.cfg.standingDL, true
	}
	dl = at + d
	if n := len(b.reqs); n > 0 {
		dl = max(dl, b.reqs[n-1].dl)
	}
	if standing && m.cfg.onArrival {
		// At the share level (level x weight per window), the cost queued
		// ahead in priority p and above drains in ahead/(level x weight)
		// windows: shed when that exceeds the time to the deadline.
		if lc, lw := m.levelAt(at); lc > 0 {
			ahead := new(big.Int) // exact: the buckets can each hold up to MaxInt64
			for _, q := range t.buckets[p:] {
				ahead.Add(ahead, big.NewInt(q.cost()))
			}
			lhs := new(big.Int).Mul(ahead, big.NewInt(m.cfg.win))
			lhs.Mul(lhs, big.NewInt(lw))
			rhs := new(big.Int).Mul(big.NewInt(dl-at), big.NewInt(lc))
			rhs.Mul(rhs, big.NewInt(m.weight(name)))
			if lhs.Cmp(rhs) > 0 {
				m.shedCount(t, b, shed.ReasonQueueDeadline, at)
				b.st.ShedOnArrival++
				m.total.ShedOnArrival++
				return 0, shed.ReasonQueueDeadline
			}
		}
	}
	b.reqs = append(b.reqs, refReq{id: id, cost: cost, enq: at, dl: dl, standing: standing})
	if !t.listed {
		t.listed, t.inTurn, t.visiting = true, true, false
		t.deficit = m.cfg.quantum * m.weight(name)
		if t.over(at) {
			m.old = append(m.old, t)
		} else {
			m.fresh = append(m.fresh, t)
		}
	} else if !t.over(at) && slices.Contains(m.old, t) {
		// its mark ran out: under its share, to the back of the fresh
		// list, with a quantum if it had emptied
		m.old = slices.DeleteFunc(m.old, func(x *refTenant) bool { return x == t })
		m.fresh = append(m.fresh, t)
		t.visiting = false
		if t.queued() == 1 {
			t.inTurn, t.deficit = true, m.cfg.quantum*m.weight(name)
		}
	}
	return dl, 0
}

// take removes the request at index i of t's bucket b at at. A tenant whose
// queue empties loses its credit, however its last request left.
func (m *refModel) take(t *refTenant, b *refBucket, i int, at int64) refReq {
	r := b.reqs[i]
	b.reqs = slices.Delete(b.reqs, i, i+1)
	if len(b.reqs) == 0 {
		b.lastEmpty = at
	}
	if t.queued() == 0 {
		t.deficit = 0
	}
	return r
}

// expireTenant sheds t's requests whose deadline is before at.
func (m *refModel) expireTenant(t *refTenant, at int64) (ids []int) {
	for _, b := range t.buckets {
		for i := 0; i < len(b.reqs); {
			if b.reqs[i].dl < at {
				ids = append(ids, m.take(t, b, i, at).id)
				m.shedCount(t, b, shed.ReasonQueueDeadline, at)
				continue
			}
			i++
		}
	}
	return ids
}

func (m *refModel) expire(at int64) (ids []int) {
	for _, name := range m.names() {
		ids = append(ids, m.expireTenant(m.tenants[name], at)...)
	}
	return ids
}

// earliest returns the earliest deadline of a queued request, false if none.
func (m *refModel) earliest() (dl int64, ok bool) {
	dl = math.MaxInt64
	for _, t := range m.tenants {
		for _, b := range t.buckets {
			for _, r := range b.reqs {
				dl, ok = min(dl, r.dl), true
			}
		}
	}
	return dl, ok
}

func (m *refModel) names() []string {
	var names []string
	for n := range m.tenants {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// remove takes request id out of the queue, counting reason (0: canceled).
func (m *refModel) remove(at int64, id int, r shed.Reason) bool {
	for _, t := range m.tenants {
		for _, b := range t.buckets {
			for i := range b.reqs {
				if b.reqs[i].id == id {
					m.take(t, b, i, at)
					m.shedCount(t, b, r, at)
					return true
				}
			}
		}
	}
	return false
}

func unlistFirst(l *[]*refTenant) *refTenant {
	t := (*l)[0]
	*l = (*l)[1:]
	return t
}

// pop serves the next request in drain order if it fits in avail.
func (m *refModel) pop(at, avail int64) (id int, cost int64, ok bool, expired []int) {
	if m.queued() == 0 {
		for _, l := range []*[]*refTenant{&m.fresh, &m.old} {
			for len(*l) > 0 {
				t := unlistFirst(l)
				t.listed, t.inTurn, t.visiting, t.deficit = false, false, false, 0
			}
		}
		return 0, 0, false, nil
	}
	for {
		l, fresh := &m.fresh, true
		if len(m.fresh) == 0 {
			l, fresh = &m.old, false
		}
		if len(*l) == 0 {
			return 0, 0, false, expired
		}
		t := (*l)[0]
		expired = append(expired, m.expireTenant(t, at)...)
		if t.queued() == 0 { // found empty at the head: leaves, credit resets
			unlistFirst(l)
			t.listed, t.inTurn, t.visiting, t.deficit = false, false, false, 0
			continue
		}
		p := len(t.buckets) - 1
		for len(t.buckets[p].reqs) == 0 {
			p--
		}
		b := t.buckets[p]
		r := b.reqs[0]
		if !t.inTurn {
			t.deficit += m.cfg.quantum * m.weight(t.name)
			t.inTurn = true
		}
		if !t.visiting {
			t.visiting, t.visitAt = true, at
		}
		serve := t.deficit >= r.cost ||
			fresh && m.cfg.freshArrival && r.enq <= t.visitAt && !t.over(at)
		if !serve || r.cost > avail && fresh && t.over(at) { // to the back of the list its share says (the old, with its turn, for one over it that does not fit)
			unlistFirst(l)
			t.inTurn, t.visiting = serve, false
			if t.over(at) {
				m.old = append(m.old, t)
			} else {
				m.fresh = append(m.fresh, t)
			}
			continue
		}
		if r.cost > avail {
			return 0, 0, false, expired
		}
		t.deficit = max(t.deficit-r.cost, 0)
		m.served(t, r.cost, at, fresh)
		m.take(t, b, 0, at)
		wait := max(at-r.enq, 0)
		for _, st := range []*shed.BucketStats{&b.st, &m.total} {
			st.Admitted++
			st.AdmittedCost += r.cost
			st.WaitCount++
			st.WaitTotal += time.Duration(wait)
			st.WaitMax = max(st.WaitMax, time.Duration(wait))
		}
		return r.id, r.cost, true, expired
	}
}

// served accounts cost served to t within the share window and marks a fresh
// tenant served more than the level over its share.
func (m *refModel) served(t *refTenant, cost, at int64, fresh bool) {
	if m.winID == 0 || at-m.winStart >= m.cfg.win {
		m.closeWindow(at)
	}
	m.lastServed = max(m.lastServed, at)
	if t.win != m.winID {
		t.win, t.winCost = m.winID, 0
	}
	t.winCost += cost
	w := m.weight(t.name)
	if !fresh {
		if m.oldCost == 0 || moreThan(t.winCost, w, m.oldCost, m.oldW) {
			m.oldCost, m.oldW = t.winCost, w
		}
		return
	}
	if m.freshCost == 0 || moreThan(t.winCost, w, m.freshCost, m.freshW) {
		m.freshCost, m.freshW = t.winCost, w
	}
	if m.levelCost > 0 && moreThan(t.winCost, w, m.levelCost, m.levelW) {
		m.markOver(t, at, true)
	}
}

// closeWindow opens the share window at at, with the level measured in the
// one it closes.
func (m *refModel) closeWindow(at int64) {
	switch {
	case m.winID == 0 || at-m.winStart >= 2*m.cfg.win:
		m.levelCost = 0 // the previous window served nothing
	case m.oldCost > 0: // the old list was served something, maybe less than its weight
		m.levelCost, m.levelW = m.oldCost, m.oldW
	case m.oldBacklogged():
		// half the most a fresh tenant got, exactly, but at least 1 per
		// that tenant's weight (the weights here are small), or 1 if the
		// fresh list was served nothing either (after a rescale)
		m.levelCost, m.levelW = max(m.freshCost, 2), 2*m.freshW
		if m.freshCost == 0 {
			m.levelCost, m.levelW = 1, 1
		}
	default:
		m.levelCost = 0
	}
	m.winID++
	m.winStart, m.oldCost, m.freshCost = at, 0, 0
}

// oldBacklogged: the old list was backlogged when the window closed. The doc
// said only "backlogged"; Scheduler's doc now says that it means the old list
// holds tenants then (they queued and were not found empty at its head yet),
// even if their requests have since expired: they were starved meanwhile.
func (m *refModel) oldBacklogged() bool { return len(m.old) > 0 }

// refWholeLevel is Stats' ShareLevel: the level rounded down to a whole cost
// per unit of weight, at least 1 when there is one.
func refWholeLevel(cost, weight int64) int64 {
	if cost == 0 {
		return 0
	}
	return max(1, cost/weight)
}

// buckets returns the model's per-bucket stats, sorted by tenant and priority.
func (m *refModel) buckets() []shed.BucketStats {
	var out []shed.BucketStats
	for _, name := range m.names() {
		for p, b := range m.tenants[name].buckets {
			st := b.st
			st.Tenant, st.Priority = name, p
			st.Queued, st.QueuedCost = len(b.reqs), b.cost()
			out = append(out, st)
		}
	}
	return out
}

func (m *refModel) stats() shed.Stats {
	t := m.total
	st := shed.Stats{
		Admitted: t.Admitted, AdmittedCost: t.AdmittedCost,
		ShedBucketFull: t.ShedBucketFull, ShedQueueDeadline: t.ShedQueueDeadline, ShedOnArrival: t.ShedOnArrival,
		ShedClosed: t.ShedClosed, ShedNoCapacity: t.ShedNoCapacity, Canceled: t.Canceled,
		WaitCount: t.WaitCount, WaitTotal: t.WaitTotal,
		Tenants: len(m.tenants), Reclaimed: m.reclaimed,
		OverShareByShed: m.overShed, OverShareByLevel: m.overLvl, ShareLevel: refWholeLevel(m.levelAt(m.latest)),
	}
	for _, name := range m.names() {
		tn := m.tenants[name]
		if q := tn.queued(); q > 0 {
			st.Active++
			st.Queued += q
			for _, b := range tn.buckets {
				st.QueuedCost += b.cost()
			}
		}
	}
	return st
}

// forget drops a tenant's state (reclaimed by the real scheduler); it must
// have nothing queued.
func (m *refModel) forget(name string) {
	t := m.tenants[name]
	delete(m.tenants, name)
	m.reclaimed++
	m.fresh = slices.DeleteFunc(m.fresh, func(x *refTenant) bool { return x == t })
	m.old = slices.DeleteFunc(m.old, func(x *refTenant) bool { return x == t })
}
