package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/tierkit/tierkit/control"
)

func init() {
	sections = append(sections, section{order: 120, name: "control",
		title: "typed knobs with bounds, rate limits, audit and rollback, in Go and over HTTP", run: tourControl})
}

// controlMinInterval is shed.limit's MinInterval: the least time between two
// changes of the knob.
const controlMinInterval = 10 * time.Second

// controlMaxLimit is shed.limit's upper bound.
const controlMaxLimit = 10_000

func tourControl(w io.Writer) error {
	reg, err := control.New(control.Config{})
	if err != nil {
		return err
	}
	// A stand-in component: its config is swapped whole, as SetConfig does.
	type cfg struct {
		limit  int64
		linger time.Duration
	}
	var mu sync.Mutex
	cur := cfg{limit: 100, linger: 2 * time.Millisecond}
	set := func(f func(*cfg)) error { mu.Lock(); defer mu.Unlock(); f(&cur); return nil }
	if err := reg.RegisterInt(control.IntKnob{Name: "shed.limit", Doc: "requests in flight", Min: 1, Max: controlMaxLimit,
		Value: cur.limit, MinInterval: controlMinInterval,
		Apply: func(v int64) error { return set(func(c *cfg) { c.limit = v }) }}); err != nil {
		return err
	}
	if err := reg.RegisterDuration(control.DurationKnob{Name: "batcher.linger", Doc: "batch window",
		Max: 20 * time.Millisecond, Value: cur.linger,
		Apply: func(v time.Duration) error { return set(func(c *cfg) { c.linger = v }) }}); err != nil {
		return err
	}
	srv := httptest.NewServer(http.StripPrefix("/control", reg.Handler()))
	defer srv.Close()

	limit := func() int64 { mu.Lock(); defer mu.Unlock(); return cur.limit }
	if err := controlAgent(w, reg, srv.URL, limit); err != nil {
		return err
	}

	// Timing: many validated, audited changes, then reads.
	const n = 20_000
	start := time.Now()
	t0 := time.Now()
	for i := range n {
		if _, err := reg.ApplyAt(t0, control.Request{Who: "bench", Changes: []control.Change{
			{Knob: "batcher.linger", Value: control.Duration(controlLinger(i))}}}); err != nil {
			return err
		}
	}
	per := time.Since(start) / n
	auditLen := reg.Stats().AuditLen
	if err := verify(controlAuditClaims(n, reg.Audit(), auditLen)...); err != nil {
		return err
	}
	fmt.Fprintf(w, "   %d audited changes: %v each; audit log holds the newest %d\n", n, per, auditLen)

	res, err := reg.Rollback("oncall", "p99 regressed")
	if err != nil {
		return err
	}
	mu.Lock()
	linger := cur.linger
	mu.Unlock()
	if err := verify(controlRollbackClaims(res, controlLinger(n-1), controlLinger(n-2), linger)...); err != nil {
		return err
	}
	fmt.Fprintf(w, "   rollback by oncall: batcher.linger %v -> %v (component now %v)\n",
		res.Changes[0].Old, res.Changes[0].New, linger)
	s := reg.Stats()
	if err := verify(controlStatsClaims(n, s)...); err != nil {
		return err
	}
	fmt.Fprintf(w, "   stats: %d requests, %d applied, %d clamped, %d rate limited, %d rollback(s)\n",
		s.Requests, s.Applied, s.Clamped, s.RateLimited, s.Rollbacks)
	return nil
}

// controlAgent has an agent ask over HTTP for more than shed.limit's bound,
// then change it again at once, and checks both outcomes before printing
// them; limit reads the component's current limit.
func controlAgent(w io.Writer, reg *control.Registry, url string, limit func() int64) error {
	body := `{"who":"agent-7","why":"queue growing","changes":[{"knob":"shed.limit","value":50000},{"knob":"batcher.linger","value":"5ms"}]}`
	posted := time.Now()
	resp, err := http.Post(url+"/control/", "application/json", strings.NewReader(body))
	if err != nil {
		return err
	}
	resp.Body.Close()
	v, err := reg.Get("shed.limit")
	if err != nil {
		return err
	}
	if err := verify(controlClampClaims(resp.StatusCode, v.Int(), limit(), reg.Stats().Clamped)...); err != nil {
		return err
	}
	fmt.Fprintf(w, "   POST /control asked shed.limit=50000 -> %s (clamped to its bound), HTTP %d\n", v, resp.StatusCode)

	// The same agent tries again at once: the knob's MinInterval refuses.
	at := time.Now()
	_, err = reg.ApplyAt(at, control.Request{Who: "agent-7", Changes: []control.Change{{Knob: "shed.limit", Value: control.Int(9000)}}})
	var rl *control.RateLimitError
	if !errors.As(err, &rl) {
		return fmt.Errorf("expected a rate limit, got %v", err)
	}
	// The first change was applied between posted and at: at most gap ago.
	gap := at.Sub(posted)
	if err := verify(controlRetryClaims(gap, rl.RetryAfter)...); err != nil {
		return err
	}
	fmt.Fprintf(w, "   a second change %v after the POST was sent: refused, retry after %v\n",
		gap.Round(time.Microsecond), rl.RetryAfter.Round(time.Second))
	return nil
}

// controlClampClaims is what the POST line states: the request succeeded,
// shed.limit (read from the registry and from the component) is clamped to
// its bound, and one change was counted as clamped.
func controlClampClaims(status int, got, component int64, clamped uint64) []claim {
	return []claim{
		{status == http.StatusOK, fmt.Sprintf("POST /control answers HTTP 200, not %d", status)},
		{got == controlMaxLimit && component == controlMaxLimit,
			fmt.Sprintf("shed.limit=50000 clamped to its bound %d, not %d (component %d)", controlMaxLimit, got, component)},
		{clamped == 1, fmt.Sprintf("1 change counted as clamped, not %d", clamped)},
	}
}

// controlRetryClaims is what the refusal line states: a change gap after the
// first is refused until the knob's MinInterval has passed since the first,
// which was applied within that gap.
func controlRetryClaims(gap, retryAfter time.Duration) []claim {
	return []claim{{retryAfter >= controlMinInterval-gap && retryAfter <= controlMinInterval,
		fmt.Sprintf("a change %v after the first must wait out the rest of the %v MinInterval, not %v", gap, controlMinInterval, retryAfter)}}
}

// controlLinger is the batcher.linger the timing loop's change i sets.
func controlLinger(i int) time.Duration { return time.Duration(1+i%19) * time.Millisecond }

// controlRollbackClaims is what the rollback line states: the rollback
// undid the last change, batcher.linger from last back to the value before
// it (prev), and the component (linger, read from it) now runs with that.
func controlRollbackClaims(res control.Result, last, prev, linger time.Duration) []claim {
	if len(res.Changes) != 1 || res.Changes[0].Knob != "batcher.linger" {
		return []claim{{false, fmt.Sprintf("the rollback undid one change of batcher.linger, not %v", res.Changes)}}
	}
	c := res.Changes[0]
	return []claim{
		{c.Old.Duration() == last && c.New.Duration() == prev,
			fmt.Sprintf("rollback: batcher.linger %v -> %v, not %v -> %v", last, prev, c.Old, c.New)},
		{linger == prev, fmt.Sprintf("component now %v, not %v", prev, linger)},
	}
}

// controlAuditClaims is what the audit line states: after the timing loop's
// n changes of batcher.linger the bounded log holds the newest
// DefaultAuditSize of them (auditLen, from Stats, and the entries of
// audit): consecutive, ending with change n-1's value and starting with
// the value of the first change it kept.
func controlAuditClaims(n int, audit []control.Entry, auditLen int) []claim {
	const size = control.DefaultAuditSize
	if len(audit) != size || auditLen != size {
		return []claim{{false, fmt.Sprintf("audit log holds the newest %d, not %d entries (Stats %d)", size, len(audit), auditLen)}}
	}
	first, last := audit[0], audit[size-1]
	newest := true
	for i, e := range audit {
		newest = newest && e.Who == "bench" && e.Knob == "batcher.linger" &&
			e.Seq == first.Seq+uint64(i) && e.New.Duration() == controlLinger(n-size+i)
	}
	return []claim{{newest, fmt.Sprintf("audit log holds the newest %d changes, batcher.linger = %v to %v, not %v to %v (seq %d to %d)",
		size, controlLinger(n-size), controlLinger(n-1), first.New, last.New, first.Seq, last.Seq)}}
}

// controlStatsClaims is what the stats line counts: the section's requests
// are the agent's POST (applied, one value clamped), its retry (rate
// limited), the timing loop's n changes (applied) and the rollback.
func controlStatsClaims(n int, s control.Stats) []claim {
	want := control.Stats{Requests: uint64(n) + 3, Applied: uint64(n) + 2, Clamped: 1, RateLimited: 1, Rollbacks: 1}
	got := control.Stats{Requests: s.Requests, Applied: s.Applied, Clamped: s.Clamped, RateLimited: s.RateLimited, Rollbacks: s.Rollbacks}
	return []claim{{got == want, fmt.Sprintf("stats: %d requests, %d applied, %d clamped, %d rate limited, %d rollback(s), not %d, %d, %d, %d, %d",
		want.Requests, want.Applied, want.Clamped, want.RateLimited, want.Rollbacks,
		got.Requests, got.Applied, got.Clamped, got.RateLimited, got.Rollbacks)}}
}
