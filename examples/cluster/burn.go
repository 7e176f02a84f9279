package main

import (
	"context"
	"time"
)

// ownCommandCPU is the CPU a gateway spends on a command besides its burn, as
// the default spec assumes it: about 200 µs, so that with the 800 µs burn, 40
// requests/s on a gateway of 0.1 nominal core read as about 0.4.
const ownCommandCPU = 200.0 // µs

// calibrateBurn measures the gateways' CPU per command at the spec's burn,
// over 2 s of the warmed-up load, and when their own part (what they spend
// beyond the burn) exceeds ownCommandCPU, lowers the burn by the excess (to
// no less than a quarter of the spec's), so that the base load reads about
// the utilization the scenarios are designed around wherever they run. On a
// 2-core host with the race detector a gateway's own part measured about
// 700 µs: the base load read 0.6-0.7 instead of 0.4, next to the failover's
// exit threshold (0.68), and a region that spilled during the warm-up could
// stay spilling until the plane's settle timed out. The new burn is kept in
// Spec.Burn and the own part in ownCPU, from which hotBurn heats a gateway
// (the scenarios restore the burn they found, not Spec.Burn).
func (c *Cluster) calibrateBurn(ctx context.Context) error {
	if !sleepCtx(ctx, time.Second) { // start-up work (pools opening) is over
		return ctx.Err()
	}
	before, err := c.Hosts(ctx)
	if err != nil {
		return err
	}
	if !sleepCtx(ctx, 2*time.Second) {
		return ctx.Err()
	}
	after, err := c.Hosts(ctx)
	if err != nil {
		return err
	}
	var cpu float64
	var commands uint64
	for id, a := range after {
		if b, ok := before[id]; ok && a.Commands > b.Commands {
			cpu += a.CPUSeconds - b.CPUSeconds
			commands += a.Commands - b.Commands
		}
	}
	if commands == 0 {
		return nil
	}
	perCommand := cpu / float64(commands) * 1e6
	c.ownCPU = max(perCommand-float64(c.Spec.Burn), 0)
	burn := calibratedBurn(c.Spec.Burn, perCommand)
	c.Spec.Logf("calibration: %.0f µs of CPU per command with a burn of %d µs: burn %d µs", perCommand, c.Spec.Burn, burn)
	if burn == c.Spec.Burn {
		return nil
	}
	c.Spec.Burn = burn
	return c.SetKnobs(ctx, c.Gateways, "cluster: burn calibrated to this host's cost per command", "chaos.burn_us", burn)
}

// calibratedBurn returns the burn that brings a measured CPU per command
// (µs, with burn included) to burn + ownCommandCPU, lowering it by at most
// three quarters and never raising it.
func calibratedBurn(burn int, perCommand float64) int {
	excess := perCommand - float64(burn) - ownCommandCPU
	if excess <= 0 {
		return burn
	}
	return max(burn/4, burn-int(excess))
}

// hotBurn returns the burn that makes a gateway's commands cost factor times
// the baseline CPU per command (the burn plus the gateways' own part, as
// calibrateBurn measured it).
func (c *Cluster) hotBurn(factor float64) int {
	own := c.ownCPU
	if own == 0 {
		own = ownCommandCPU
	}
	return int(factor*(float64(c.Spec.Burn)+own) - own)
}
