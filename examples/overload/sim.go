package main

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// scenario is one overload experiment on a virtual clock.
type scenario struct {
	Seed      uint64
	Duration  time.Duration // virtual time of offered load
	Slots     int           // workers: requests served at once
	Unit      time.Duration // service time of one unit of cost
	Normal    int           // normal tenants
	NormalPct float64       // their total offered load, fraction of capacity
	Sigma     float64       // lognormal spread of normal tenants' rates
	Noisy     int           // noisy tenants
	NoisyPct  float64       // each noisy tenant's offered request rate, fraction of capacity in cost-1 requests
	NoisyCost int64         // cost of a noisy request
	HighPct   float64       // share of requests at the high priority
	Deadline  time.Duration // client deadline: a request served later is wasted
}

// defaultScenario is the article's experiment: 1,344 normal tenants offering 75%
// of capacity and 6 noisy ones at 10% each.
func defaultScenario(d time.Duration, noisyCost int64) scenario {
	return scenario{
		Seed: 1, Duration: d, Slots: 32, Unit: time.Millisecond,
		Normal: 1344, NormalPct: 0.75, Sigma: 1, Noisy: 6, NoisyPct: 0.10, NoisyCost: noisyCost,
		HighPct: 0.2, Deadline: 100 * time.Millisecond,
	}
}

// capacity is the cost units served per second.
func (s scenario) capacity() float64 { return float64(s.Slots) / s.Unit.Seconds() }

// request is one arrival.
type request struct {
	tenant   int
	name     string
	noisy    bool
	prio     int
	cost     int64
	arrive   time.Duration
	deadline time.Duration // absolute: arrive + scenario.Deadline

	apfQueue int     // APF baseline: the queue the request joined
	apfR     float64 // APF baseline: the virtual time at its arrival
}

// arrivals generates the seeded arrival stream: one Poisson process per tenant,
// merged (a global Poisson process whose arrivals pick a tenant in proportion to
// its rate).
func (s scenario) arrivals() ([]request, []string) {
	rng := rand.New(rand.NewPCG(s.Seed, 0x5eed))
	n := s.Normal + s.Noisy
	rates := make([]float64, n) // requests per second
	var sum float64
	for i := range s.Normal {
		rates[i] = math.Exp(s.Sigma * rng.NormFloat64())
		sum += rates[i]
	}
	for i := range s.Normal {
		rates[i] *= s.NormalPct * s.capacity() / sum
	}
	for i := s.Normal; i < n; i++ {
		rates[i] = s.NoisyPct * s.capacity()
	}
	names := make([]string, n)
	cum := make([]float64, n)
	total := 0.0
	for i := range n {
		names[i] = tenantName(i, i >= s.Normal)
		total += rates[i]
		cum[i] = total
	}
	var out []request
	t := 0.0
	for {
		t += rng.ExpFloat64() / total
		// Compared before the conversion: a time past the longest
		// Duration (a rate of one request in centuries) converted to a
		// negative one, and the stream never reached its end.
		if t*float64(time.Second) >= float64(s.Duration) {
			return out, names
		}
		at := time.Duration(t * float64(time.Second))
		i, _ := slices.BinarySearch(cum, rng.Float64()*total)
		i = min(i, n-1)
		r := request{tenant: i, name: names[i], noisy: i >= s.Normal, cost: 1, arrive: at, deadline: at + s.Deadline}
		if rng.Float64() < s.HighPct {
			r.prio = 1
		}
		if r.noisy {
			r.cost = s.NoisyCost
		}
		out = append(out, r)
	}
}

func tenantName(i int, noisy bool) string {
	if noisy {
		return "noisy-" + itoa(i)
	}
	return "tenant-" + itoa(i)
}

func itoa(i int) string {
	var b [20]byte
	p := len(b)
	for {
		p--
		b[p] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			return string(b[p:])
		}
	}
}

// policy is an admission policy under test: offer is called at each arrival when
// no slot is free or something is queued (it queues or rejects the request),
// done when a request completes, then next while a slot is free (it returns
// the next request to serve). Requests the policy drops from its queues are
// reported through drop.
type policy interface {
	name() string
	reset(s scenario, drop func(*request))
	// direct reports whether a request may start at once in a free slot (the
	// policy's fast path) and records it.
	direct(now time.Duration, r *request, busy int) bool
	offer(now time.Duration, r *request, busy int) (queued bool)
	next(now time.Duration, busy int) *request
	done(now time.Duration, r *request)
}

// outcome accumulates the metrics of one run.
type outcome struct {
	Policy         string
	Offered        [2]int64 // normal, noisy requests
	Rejected       [2]int64 // rejected or dropped
	Served         [2]int64 // completed
	InDeadline     [2]int64 // completed within the client deadline
	UsefulCost     int64    // cost of requests completed within deadline
	BusyCost       int64    // cost of every request served
	NormalRejected int      // normal tenants with at least one rejection
	NoisyRejected  int      // noisy tenants with at least one rejection
	DecisionNanos  int64    // real time spent inside the policy (not deterministic)
	Decisions      int64
	CapacityCost   float64 // capacity until the last completion, in cost units
}

// completion is a busy slot.
type completion struct {
	at time.Duration
	r  *request
}

type completions []completion

func (c completions) Len() int           { return len(c) }
func (c completions) Less(i, j int) bool { return c[i].at < c[j].at }
func (c completions) Swap(i, j int)      { c[i], c[j] = c[j], c[i] }
func (c *completions) Push(x any)        { *c = append(*c, x.(completion)) }
func (c *completions) Pop() any {
	old := *c
	x := old[len(old)-1]
	*c = old[:len(old)-1]
	return x
}

// run plays the arrivals through p on the virtual clock.
func run(s scenario, reqs []request, names []string, p policy) outcome {
	o := outcome{Policy: p.name(), CapacityCost: s.capacity() * s.Duration.Seconds()}
	rejectedBy := make([]bool, len(names))
	reject := func(r *request) {
		o.Rejected[b2i(r.noisy)]++
		rejectedBy[r.tenant] = true
	}
	p.reset(s, reject)
	var busy completions
	start := func(now time.Duration, r *request) {
		heap.Push(&busy, completion{at: now + time.Duration(r.cost)*s.Unit, r: r})
	}
	clock := newStopwatch(&o)
	finish := func(c completion) {
		r := c.r
		k := b2i(r.noisy)
		o.Served[k]++
		o.BusyCost += r.cost
		if c.at <= r.deadline {
			o.InDeadline[k]++
			o.UsefulCost += r.cost
		}
		clock.start()
		p.done(c.at, r)
		for busy.Len() < s.Slots {
			n := p.next(c.at, busy.Len())
			if n == nil {
				break
			}
			start(c.at, n)
		}
		clock.stop()
	}
	for i := range reqs {
		r := &reqs[i]
		for busy.Len() > 0 && busy[0].at <= r.arrive {
			finish(heap.Pop(&busy).(completion))
		}
		o.Offered[b2i(r.noisy)]++
		clock.start()
		switch {
		case busy.Len() < s.Slots && p.direct(r.arrive, r, busy.Len()):
			start(r.arrive, r)
		case !p.offer(r.arrive, r, busy.Len()):
			reject(r)
		}
		clock.stop()
	}
	end := s.Duration
	for busy.Len() > 0 { // drain what was admitted
		c := heap.Pop(&busy).(completion)
		end = max(end, c.at)
		finish(c)
	}
	o.CapacityCost = s.capacity() * end.Seconds()
	for i, rej := range rejectedBy {
		if rej && i < s.Normal {
			o.NormalRejected++
		} else if rej {
			o.NoisyRejected++
		}
	}
	return o
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
