package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tierkit/tierkit/examples/client"
)

// Load is the load generator: for every tenant and every region, one thin
// client (its home region, the tenant's credentials) and a few workers that
// send paced GET and SET requests on the tenant's keys. Each stream's rate can
// be changed while it runs (a flood, a region's demand rising). It counts,
// per tenant and per home region, requests that succeeded, failed, were shed
// (an OVERLOADED answer) and were retried on another host, and, per host, the
// attempts every client sent there.
type Load struct {
	streams []*stream
	byKey   map[string]*stream // tenant + "/" + region

	wg     sync.WaitGroup
	cancel context.CancelFunc
}

// stream is one tenant in one region: its client, its pacing, its counters.
type stream struct {
	tenant, region string
	c              *client.Client

	interval atomic.Int64 // ns between requests of the stream; 0 pauses it

	ok, failed, shed atomic.Uint64
	lastErr          atomic.Pointer[string]
}

// LoadSpec configures a Load.
type LoadSpec struct {
	Tenants  []string
	Regions  []string
	Rate     float64 // requests/s per tenant per region
	Workers  int     // per stream: how many requests of a stream may be in flight
	PoolSize int     // connections per host per client (the small sticky pool)
	Timeout  time.Duration
	Keys     int // keys per tenant
}

// NewLoad creates the clients; routes come from follow, called once per client
// on the Load's context (a control plane's Follow), or are set by the caller.
func NewLoad(spec LoadSpec) (*Load, error) {
	l := &Load{byKey: map[string]*stream{}}
	for _, t := range spec.Tenants {
		for _, r := range spec.Regions {
			c, err := client.New(client.Config{Service: service, Region: r, Username: t, Password: tenantPassword(t), PoolSize: spec.PoolSize,
				DialTimeout: time.Second, EjectFor: 2 * time.Second})
			if err != nil {
				_ = l.Close()
				return nil, err
			}
			s := &stream{tenant: t, region: r, c: c}
			s.setRate(spec.Rate)
			l.streams = append(l.streams, s)
			l.byKey[t+"/"+r] = s
		}
	}
	return l, nil
}

// tenantPassword is the password of tenant on every gateway (a demo secret).
func tenantPassword(tenant string) string { return "pw-" + tenant }

// service is the rollout service of every tenant's clients: the rollout rules
// name it.
const service = "kv"

// Start runs the workers (spec.Workers per stream) until Close. follow, if not
// nil, is started once per client (it keeps the client's routes current).
func (l *Load) Start(spec LoadSpec, follow func(ctx context.Context, c *client.Client)) {
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	for i, s := range l.streams {
		if follow != nil {
			l.wg.Go(func() { follow(ctx, s.c) })
		}
		tokens := make(chan struct{})
		l.wg.Go(func() { s.pace(ctx, tokens) })
		for w := range spec.Workers {
			rng := rand.New(rand.NewPCG(uint64(i), uint64(w)))
			l.wg.Go(func() { s.work(ctx, tokens, rng, spec) })
		}
	}
}

// Close stops the workers, waits for them and closes the clients.
func (l *Load) Close() error {
	if l.cancel != nil {
		l.cancel()
	}
	l.wg.Wait()
	var errs []error
	for _, s := range l.streams {
		errs = append(errs, s.c.Close())
	}
	return errors.Join(errs...)
}

// SetRate sets tenant's request rate in region (both when region is ""), in
// requests per second; 0 pauses the stream.
func (l *Load) SetRate(tenant, region string, rate float64) {
	for _, s := range l.streams {
		if s.tenant == tenant && (region == "" || s.region == region) {
			s.setRate(rate)
		}
	}
}

// SetRegionRate sets the rate of every tenant of region except those in skip.
func (l *Load) SetRegionRate(region string, rate float64, skip ...string) {
	for _, s := range l.streams {
		if s.region == region && !slices.Contains(skip, s.tenant) {
			s.setRate(rate)
		}
	}
}

// Clients returns every client of the load (for publishing routes by hand).
func (l *Load) Clients() []*client.Client {
	out := make([]*client.Client, len(l.streams))
	for i, s := range l.streams {
		out[i] = s.c
	}
	return out
}

// InFlight returns the requests of region's clients sent to the host at addr
// (or waiting for one of its connections) that have no outcome yet.
func (l *Load) InFlight(region, addr string) int {
	n := 0
	for _, s := range l.streams {
		if s.region == region {
			n += s.c.Stats().InFlight[addr]
		}
	}
	return n
}

// ejectFor returns the shortest time any client keeps a failed host ejected
// (client.Config.EjectFor): the most often an ejection can lapse.
func (l *Load) ejectFor() time.Duration {
	var d time.Duration
	for _, s := range l.streams {
		if e := s.c.Config().EjectFor; d == 0 || e < d {
			d = e
		}
	}
	return d
}

// setRate sets the stream's rate in requests/s; a rate that is not positive
// (or NaN) pauses it. The interval is kept within 1 ns and about 146 years:
// a huge rate sends as fast as the workers go rather than rounding to 0 (a
// pause), and a tiny one as good as never rather than overflowing into a
// negative interval (no pacing at all).
func (s *stream) setRate(rate float64) {
	if !(rate > 0) {
		s.interval.Store(0)
		return
	}
	s.interval.Store(int64(min(max(float64(time.Second)/rate, 1), math.MaxInt64/2)))
}

// pace sends a token to tokens at the stream's rate until ctx ends. A token
// waits for an idle worker, so at most spec.Workers requests of the stream are
// in flight; a rate change takes effect at the next token. After a stall it
// does not catch up (no burst).
func (s *stream) pace(ctx context.Context, tokens chan<- struct{}) {
	next := time.Now()
	for ctx.Err() == nil {
		iv := time.Duration(s.interval.Load())
		if iv == 0 { // paused: look again shortly
			if !sleepCtx(ctx, 20*time.Millisecond) {
				return
			}
			next = time.Now()
			continue
		}
		now := time.Now()
		next = next.Add(iv)
		if next.Before(now.Add(-50 * time.Millisecond)) {
			next = now
		}
		if d := next.Sub(now); d > 0 && !sleepCtx(ctx, d) {
			return
		}
		select {
		case tokens <- struct{}{}:
		case <-ctx.Done():
			return
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func (s *stream) work(ctx context.Context, tokens <-chan struct{}, rng *rand.Rand, spec LoadSpec) {
	// Wait for the client's first routes (a bounded poll: it ends with ctx).
	for {
		if _, ok := s.c.Routes(); ok {
			break
		}
		if !sleepCtx(ctx, 10*time.Millisecond) {
			return
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tokens:
		}
		key := loadKey(s.tenant, rng.IntN(spec.Keys))
		rctx, cancel := context.WithTimeout(ctx, spec.Timeout)
		var err error
		if rng.IntN(4) == 0 {
			err = s.c.Set(rctx, key, "v", 0)
		} else {
			_, err = s.c.Get(rctx, key)
		}
		cancel()
		if ctx.Err() != nil {
			return // the load stops: do not count requests cut short by it
		}
		s.record(err)
	}
}

func (s *stream) record(err error) {
	switch {
	case err == nil, errors.Is(err, client.ErrNotFound):
		s.ok.Add(1)
	case strings.HasPrefix(err.Error(), "OVERLOADED"):
		s.shed.Add(1)
	default:
		s.failed.Add(1)
		msg := err.Error()
		s.lastErr.Store(&msg)
	}
}

// Counts are request outcomes.
type Counts struct {
	OK, Failed, Shed, Retried uint64
	Gateway, Direct           uint64 // requests by path
}

// Total is the number of requests with an outcome.
func (c Counts) Total() uint64 { return c.OK + c.Failed + c.Shed }

func (c Counts) add(o Counts) Counts {
	return Counts{c.OK + o.OK, c.Failed + o.Failed, c.Shed + o.Shed, c.Retried + o.Retried, c.Gateway + o.Gateway, c.Direct + o.Direct}
}

func (c Counts) sub(o Counts) Counts {
	return Counts{c.OK - o.OK, c.Failed - o.Failed, c.Shed - o.Shed, c.Retried - o.Retried, c.Gateway - o.Gateway, c.Direct - o.Direct}
}

// Snapshot is the Load's counters at one moment. Subtract two with Sub to
// measure a window.
type Snapshot struct {
	At time.Time
	// From is the start of a window (Sub sets it; zero in a reading).
	From time.Time
	// Streams holds the counts per tenant + "/" + home region.
	Streams map[string]Counts
	// Hosts holds attempts per host address, per home region of the client
	// that sent them: Hosts[region][addr].
	Hosts map[string]map[string]uint64
	// LastErr holds a failed request's error per stream, if any.
	LastErr map[string]string
}

// Snapshot reads every counter.
func (l *Load) Snapshot() Snapshot {
	sn := Snapshot{At: time.Now(), Streams: map[string]Counts{}, Hosts: map[string]map[string]uint64{}, LastErr: map[string]string{}}
	for _, s := range l.streams {
		st := s.c.Stats()
		k := s.tenant + "/" + s.region
		sn.Streams[k] = Counts{OK: s.ok.Load(), Failed: s.failed.Load(), Shed: s.shed.Load(),
			Retried: st.Retries, Gateway: st.Gateway, Direct: st.Direct}
		if e := s.lastErr.Load(); e != nil {
			sn.LastErr[k] = *e
		}
		h := sn.Hosts[s.region]
		if h == nil {
			h = map[string]uint64{}
			sn.Hosts[s.region] = h
		}
		for addr, n := range st.Hosts {
			h[addr] += n
		}
	}
	return sn
}

// Sub returns the counts of the window from o (earlier) to s. A host whose
// pool a client closed (routes without it) may count less in s than in o; it
// then counts 0.
func (s Snapshot) Sub(o Snapshot) Snapshot {
	out := Snapshot{At: s.At, From: o.At, Streams: map[string]Counts{}, Hosts: map[string]map[string]uint64{}, LastErr: map[string]string{}}
	for k, c := range s.Streams {
		out.Streams[k] = c.sub(o.Streams[k])
		if out.Streams[k].Failed > 0 {
			out.LastErr[k] = s.LastErr[k] // a failure of the window: the last error is one of them
		}
	}
	for r, hs := range s.Hosts {
		out.Hosts[r] = map[string]uint64{}
		for addr, n := range hs {
			if p := o.Hosts[r][addr]; p <= n {
				out.Hosts[r][addr] = n - p
			}
		}
	}
	return out
}

// Seconds is the length of a window in seconds.
func (s Snapshot) Seconds() float64 { return s.At.Sub(s.From).Seconds() }

// Tenant sums tenant's counts over its regions.
func (s Snapshot) Tenant(tenant string) Counts {
	var c Counts
	for k, v := range s.Streams {
		if strings.HasPrefix(k, tenant+"/") {
			c = c.add(v)
		}
	}
	return c
}

// Region sums the counts of the clients whose home is region.
func (s Snapshot) Region(region string) Counts {
	var c Counts
	for k, v := range s.Streams {
		if strings.HasSuffix(k, "/"+region) {
			c = c.add(v)
		}
	}
	return c
}

// All sums every count.
func (s Snapshot) All() Counts {
	var c Counts
	for _, v := range s.Streams {
		c = c.add(v)
	}
	return c
}

// HostTotals sums attempts per host over every home region.
func (s Snapshot) HostTotals() map[string]uint64 {
	out := map[string]uint64{}
	for _, hs := range s.Hosts {
		for addr, n := range hs {
			out[addr] += n
		}
	}
	return out
}

// Tenants lists the tenants with counts, sorted.
func (s Snapshot) Tenants() []string {
	seen := map[string]bool{}
	for k := range s.Streams {
		seen[k[:strings.IndexByte(k, '/')]] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

// loadKey is the tenant's k-th key.
func loadKey(tenant string, k int) string { return fmt.Sprintf("%s:k%d", tenant, k) }
