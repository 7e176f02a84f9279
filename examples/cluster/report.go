package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Report is what one scenario measured: its figures, and the checks that
// failed (a scenario passes when none did).
type Report struct {
	Name     string
	Took     time.Duration
	Figures  []string
	Failures []string
}

// figure records a measured figure.
func (r *Report) figure(format string, args ...any) {
	r.Figures = append(r.Figures, fmt.Sprintf(format, args...))
}

// check records a failure when ok is false. The message says what was wanted.
func (r *Report) check(ok bool, format string, args ...any) {
	if !ok {
		r.Failures = append(r.Failures, fmt.Sprintf(format, args...))
	}
}

// OK reports whether every check passed.
func (r *Report) OK() bool { return len(r.Failures) == 0 }

// String renders the report for a terminal.
func (r *Report) String() string {
	var b strings.Builder
	verdict := "PASS"
	if !r.OK() {
		verdict = "FAIL"
	}
	fmt.Fprintf(&b, "== %s: %s (%.1f s)\n", r.Name, verdict, r.Took.Seconds())
	for _, f := range r.Figures {
		fmt.Fprintf(&b, "   %s\n", f)
	}
	for _, f := range r.Failures {
		fmt.Fprintf(&b, "   FAILED: %s\n", f)
	}
	return b.String()
}

// scenario is one scripted experiment on a running cluster. It leaves the
// cluster as it found it (knobs, rates, rollout), except killed-gateway,
// which runs last. An error means the experiment could not be run.
type scenario struct {
	name string
	doc  string
	run  func(ctx context.Context, c *Cluster, r *Report) error
}

// scenarios in the order -scenario all runs them.
var scenarios = []scenario{
	{"hot-gateway", "one gateway burns CPU per command: its weight drops and the load evens out", hotGateway},
	{"region-overload", "a region's demand rises toward overload: it spills to its backup before its hot signal crosses 90%, then returns without flapping", regionOverload},
	{"noisy-tenant", "one tenant floods the tier at reduced capacity: only it is shed, on every gateway offered well over its capacity and in every region", noisyTenant},
	{"rollout", "rollout 0 -> 50 -> 100%, then the kill switch sends everything direct at once", rolloutRamp},
	{"killed-gateway", "a gateway process is killed mid-load: clients move to the next host, nothing fails beyond the retry", killedGateway},
}

// Run runs the named scenario on c and returns its report. A gateway that
// died meanwhile (not killed by the scenario on purpose) fails it.
func Run(ctx context.Context, c *Cluster, name string) (*Report, error) {
	for _, s := range scenarios {
		if s.name == name {
			r := &Report{Name: name}
			// A gateway dead before was reported by the scenario it died in.
			dead := map[*gatewayProc]bool{}
			for _, g := range c.Dead() {
				dead[g] = true
			}
			defer func() {
				for _, g := range c.Dead() {
					r.check(dead[g], "gateway %s died: %s", g.ID, g.lastLines())
				}
			}()
			// Each scenario starts from a settled tier: no region spilling
			// after the previous one, every gateway measured.
			if err := c.Settle(ctx, 30*time.Second); err != nil {
				return r, err
			}
			start := time.Now()
			err := s.run(ctx, c, r)
			r.Took = time.Since(start)
			return r, err
		}
	}
	return nil, fmt.Errorf("cluster: unknown scenario %q", name)
}

// measure returns the load's counts over the next d (a measurement window:
// it waits for time to pass, not for a condition).
func measure(ctx context.Context, c *Cluster, d time.Duration) (Snapshot, error) {
	before := c.Load.Snapshot()
	if !sleepCtx(ctx, d) {
		return Snapshot{}, ctx.Err()
	}
	return c.Load.Snapshot().Sub(before), nil
}

func share(part, whole uint64) float64 {
	if whole == 0 {
		return 0
	}
	return float64(part) / float64(whole)
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
