package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// hostWindow is the plane's view of one region's hosts averaged over a window
// of ticks: mean utilization and mean ring share per gateway ID.
type hostWindow struct {
	cpu, share map[string]float64
	ticks      int
}

// watchHosts samples the plane's state once per cadence for d and averages
// the hosts of region.
func watchHosts(ctx context.Context, c *Cluster, region string, d time.Duration) (hostWindow, error) {
	w := hostWindow{cpu: map[string]float64{}, share: map[string]float64{}}
	end := time.Now().Add(d)
	var last uint64
	for time.Now().Before(end) {
		st := c.Plane.State()
		if st.Tick != last {
			last = st.Tick
			w.ticks++
			for _, h := range st.Hosts {
				if h.Region == region {
					w.cpu[h.ID] += h.CPU
					w.share[h.ID] += h.Share
				}
			}
		}
		if !sleepCtx(ctx, c.Spec.Cadence/4) {
			return w, ctx.Err()
		}
	}
	for id := range w.cpu {
		w.cpu[id] /= float64(max(w.ticks, 1))
		w.share[id] /= float64(max(w.ticks, 1))
	}
	return w, nil
}

// ratio returns id's CPU over the mean CPU of the region's other hosts.
func (w hostWindow) ratio(id string) float64 {
	var sum float64
	n := 0
	for h, v := range w.cpu {
		if h != id {
			sum += v
			n++
		}
	}
	if n == 0 || sum == 0 {
		return 0
	}
	return w.cpu[id] / (sum / float64(n))
}

// evensOut reports whether id's CPU is within limit times its peers' mean,
// the peers measured: with their CPU summing to 0 (none in the window, or
// not yet measured) ratio reads 0, which would pass on nothing.
func (w hostWindow) evensOut(id string, limit float64) bool {
	for h, v := range w.cpu {
		if h != id && v > 0 {
			return w.ratio(id) <= limit
		}
	}
	return false
}

func (w hostWindow) String() string {
	var b strings.Builder
	for _, id := range sortedKeys(w.cpu) {
		fmt.Fprintf(&b, "%s cpu %.2f share %.2f; ", id, w.cpu[id], w.share[id])
	}
	return strings.TrimSuffix(b.String(), "; ")
}

func hostByID(st controlplane.State, id string) (controlplane.HostState, bool) {
	for _, h := range st.Hosts {
		if h.ID == id {
			return h, true
		}
	}
	return controlplane.HostState{}, false
}

// hotFactor is how many times the baseline CPU a command costs on the gateway
// hotGateway heats.
const hotFactor = 4

// hotGateway makes one gateway hot: every command there burns 4 times the
// baseline CPU. The plane sees its utilization rise, the region's balancer
// lowers its weight, and the region's CPU evens out: the hot host's CPU over
// its peers' mean falls back toward 1 while its ring share falls.
// No request may fail from the start to the end of the scenario, and once
// the weight is lowered at most 1% may be shed.
func hotGateway(ctx context.Context, c *Cluster, r *Report) (err error) {
	h := hotRun{region: c.Spec.Regions[0]}
	h.hot = c.RegionGateways(h.region)[0]
	if err := c.Settle(ctx, 15*time.Second); err != nil {
		return err
	}
	from := c.Load.Snapshot()
	defer func() { // after the restore below
		if err == nil {
			checkHotRequests(r, c.Load.Snapshot().Sub(from), h.evened)
		}
	}()
	if h.base, err = watchHosts(ctx, c, h.region, 2*time.Second); err != nil {
		return err
	}
	r.figure("before: %s", h.base)
	hot := []*gatewayProc{h.hot}
	// The burn is set back as found, as noisy-tenant does: not to Spec.Burn,
	// which a gateway given with -gateway, or changed by an operator, may
	// not have.
	saved, err := c.readKnobs(ctx, hot, "chaos.burn_us")
	if err != nil {
		return err
	}
	// The restore is set up before the heat: a heat whose answer was lost
	// (a timeout, an error after the change) may have been applied.
	defer func() {
		if rerr := c.restoreKnobs(context.WithoutCancel(ctx), hot, "hot-gateway: restore", saved); err == nil {
			err = rerr
		}
	}()
	if err := c.SetKnobs(ctx, hot, "hot-gateway: heat", "chaos.burn_us", c.hotBurn(hotFactor)); err != nil {
		return err
	}
	lowerErr := h.awaitLowered(ctx, c)
	r.check(h.rawPeak >= 1.5, "the plane sees %s's heat: its polls measure >= 1.5x its peers' CPU before its weight drops (raw peak %.2f)", h.hot.ID, h.rawPeak)
	r.check(lowerErr == nil, "the balancer lowers %s's ring share to <= 60%% of before within 20 s", h.hot.ID)
	if lowerErr != nil {
		return nil
	}
	return h.checkEvenedOut(ctx, c, r)
}

// hotRun is what hotGateway measured of its hot gateway, from one phase to the
// next.
type hotRun struct {
	region string
	hot    *gatewayProc
	base   hostWindow // the region's hosts before the heat
	// peak and rawPeak are the hot host's highest CPU over its peers' mean,
	// smoothed and raw, while its weight fell.
	peak, rawPeak float64
	lowered       time.Duration // from the heat to the lowered share
	evened        Snapshot      // the load once the weight was lowered; zero if it was not
}

// awaitLowered waits, for up to 20 s, until the plane has seen the heat and
// the balancer has lowered the hot host's weight so that its share is at most
// 60% of before, and records the peak of its CPU over its peers' mean, tick
// by tick meanwhile: the heat the plane saw before the correction took
// effect.
func (h *hotRun) awaitLowered(ctx context.Context, c *Cluster) error {
	heated := time.Now()
	// The heat is read on the raw samples: the plane rebases a host's
	// smoothed utilization on its new share in the very tick that lowers its
	// weight, so the smoothed figure a poll of the plane sees may already be
	// the corrected one (on a slow host it peaked at 1.09 while the raw
	// sample was several times the peers').
	err := poll(ctx, 20*time.Second, c.Spec.Cadence/2, func() (bool, error) {
		w, raw := lastTick(c, h.region)
		h.peak = max(h.peak, w.ratio(h.hot.ID))
		h.rawPeak = max(h.rawPeak, raw.ratio(h.hot.ID))
		return w.share[h.hot.ID] <= 0.6*h.base.share[h.hot.ID], nil
	})
	h.lowered = time.Since(heated)
	return err
}

// checkEvenedOut checks, once the hot host's weight is lowered, that its
// commands really cost more CPU and that the region's CPU evens out while it
// keeps its lowered share; it keeps the load of that window in h.evened.
func (h *hotRun) checkEvenedOut(ctx context.Context, c *Cluster, r *Report) error {
	if !sleepCtx(ctx, 2*time.Second) { // the last weight changes take effect
		return ctx.Err()
	}
	id, gws := h.hot.ID, c.RegionGateways(h.region)
	before := c.Load.Snapshot()
	gwBefore, err := c.Hosts(ctx)
	if err != nil {
		return err
	}
	after, err := watchHosts(ctx, c, h.region, 3*time.Second)
	if err != nil {
		return err
	}
	gwAfter, err := c.Hosts(ctx)
	if err != nil {
		return err
	}
	// The heat is real: the gateways' own CPU per command.
	perCmd, peers := cpuPerCommand(gws, id, gwBefore, gwAfter)
	r.figure("CPU per command, as the gateways count it: %s %.0f µs, its peers %.0f µs on average", id, perCmd[id], peers)
	r.check(peers > 0 && perCmd[id] >= 2*peers, "the hot gateway's commands cost >= 2x its peers' (%.0f against %.0f µs)", perCmd[id], peers)
	load := c.Load.Snapshot().Sub(before)
	h.evened = load
	hosts := load.HostTotals()
	var total uint64
	for _, g := range gws {
		total += hosts[g.RESP]
	}
	r.figure("heated %s to %dx the CPU per command: the plane's polls measured it at up to %.2fx its peers' CPU (smoothed %.2fx); its ring share fell to 60%% of before after %v",
		id, hotFactor, h.rawPeak, h.peak, h.lowered.Round(time.Millisecond))
	r.figure("after: %s", after)
	r.figure("hot host CPU over its peers' mean, smoothed: %.2f at the peak, %.2f after; it then served %.0f%% of the region's requests (its ring share was %.0f%% before)",
		h.peak, after.ratio(id), 100*share(hosts[h.hot.RESP], total), 100*h.base.share[id])
	// Without a tick in the window the ratio and the share read 0: the
	// checks below would pass on nothing measured.
	measured := after.ticks > 0
	r.check(measured, "the plane measured %s's hosts after the weight was lowered (got %d ticks)", h.region, after.ticks)
	r.check(measured && after.evensOut(id, 1.35), "the load evens out: the hot host's CPU is within 1.35x its peers' mean (got %.2f)", after.ratio(id))
	r.check(measured && after.share[id] < 0.6*h.base.share[id], "the hot host keeps a lowered share (%.2f against %.2f before)", after.share[id], h.base.share[id])
	a := load.All()
	r.figure("meanwhile %d requests: %d failed, %d shed", a.Total(), a.Failed, a.Shed)
	return nil
}

// checkHotRequests checks hot-gateway's requests: none failed over the whole
// scenario (whole: before the heat, while the weight fell, once it was lowered,
// and during the restore), and at most 1% were shed once the weight was
// lowered (evened; zero when it was not, and then not checked). A gateway
// burning 4 times the CPU on a loaded machine may queue past its deadline now
// and then (its admission limit follows the machine's CPU): a few shed
// requests are tolerated, no failure.
func checkHotRequests(r *Report, whole, evened Snapshot) {
	a := whole.All()
	r.figure("in the whole scenario %d requests: %d failed, %d shed", a.Total(), a.Failed, a.Shed)
	r.check(a.Failed == 0, "no request fails from before the heat to the restore (got %d of %d; last error %v)", a.Failed, a.Total(), firstErr(whole))
	if e := evened.All(); e.Total() > 0 {
		r.check(share(e.Shed, e.Total()) <= 0.01, "at most 1%% of the requests are shed once the weight is lowered (got %d of %d)", e.Shed, e.Total())
	}
}

// lastTick returns the plane's last tick for region as two one-tick windows:
// the smoothed utilization and the raw sample of that tick's poll.
func lastTick(c *Cluster, region string) (smoothed, raw hostWindow) {
	smoothed = hostWindow{cpu: map[string]float64{}, share: map[string]float64{}, ticks: 1}
	raw = hostWindow{cpu: map[string]float64{}, share: smoothed.share, ticks: 1}
	for _, h := range c.Plane.State().Hosts {
		if h.Region == region {
			smoothed.cpu[h.ID], smoothed.share[h.ID] = h.CPU, h.Share
			raw.cpu[h.ID] = h.RawCPU
		}
	}
	return smoothed, raw
}

// cpuPerCommand returns each gateway's CPU per command in µs between two host
// states, and the mean of the gateways other than hot (0 if none was
// measured). A gateway without commands in the window, or without both states
// (Hosts skips one that is not running), has no figure and is left out of the
// mean rather than counted as 0 µs.
func cpuPerCommand(gws []*gatewayProc, hot string, before, after map[string]HostState) (map[string]float64, float64) {
	perCmd := map[string]float64{}
	var sum float64
	peers := 0
	for _, g := range gws {
		a, aok := after[g.ID]
		b, bok := before[g.ID]
		if !aok || !bok || a.Commands <= b.Commands {
			continue
		}
		perCmd[g.ID] = (a.CPUSeconds - b.CPUSeconds) / float64(a.Commands-b.Commands) * 1e6
		if g.ID != hot {
			sum += perCmd[g.ID]
			peers++
		}
	}
	return perCmd, sum / float64(max(peers, 1))
}
