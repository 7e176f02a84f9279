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
	if err := reg.RegisterInt(control.IntKnob{Name: "shed.limit", Doc: "requests in flight", Min: 1, Max: 10_000,
		Value: cur.limit, MinInterval: 10 * time.Second,
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

	// An agent asks for more than the bounds allow: the change is clamped.
	body := `{"who":"agent-7","why":"queue growing","changes":[{"knob":"shed.limit","value":50000},{"knob":"batcher.linger","value":"5ms"}]}`
	resp, err := http.Post(srv.URL+"/control/", "application/json", strings.NewReader(body))
	if err != nil {
		return err
	}
	resp.Body.Close()
	v, _ := reg.Get("shed.limit")
	fmt.Fprintf(w, "   POST /control asked shed.limit=50000 -> %s (clamped to its bound), HTTP %d\n", v, resp.StatusCode)

	// The same agent tries again at once: the knob's MinInterval refuses.
	_, err = reg.Apply(control.Request{Who: "agent-7", Changes: []control.Change{{Knob: "shed.limit", Value: control.Int(9000)}}})
	var rl *control.RateLimitError
	if !errors.As(err, &rl) {
		return fmt.Errorf("expected a rate limit, got %v", err)
	}
	fmt.Fprintf(w, "   a second change 0 s later: refused, retry after %v\n", rl.RetryAfter.Round(time.Second))

	// Timing: many validated, audited changes, then reads.
	const n = 20_000
	start := time.Now()
	t0 := time.Now()
	for i := range n {
		if _, err := reg.ApplyAt(t0, control.Request{Who: "bench", Changes: []control.Change{
			{Knob: "batcher.linger", Value: control.Duration(time.Duration(1+i%19) * time.Millisecond)}}}); err != nil {
			return err
		}
	}
	per := time.Since(start) / n
	fmt.Fprintf(w, "   %d audited changes: %v each; audit log holds the newest %d\n", n, per, reg.Stats().AuditLen)

	res, err := reg.Rollback("oncall", "p99 regressed")
	if err != nil {
		return err
	}
	mu.Lock()
	linger := cur.linger
	mu.Unlock()
	fmt.Fprintf(w, "   rollback by oncall: batcher.linger %v -> %v (component now %v)\n",
		res.Changes[0].Old, res.Changes[0].New, linger)
	s := reg.Stats()
	fmt.Fprintf(w, "   stats: %d requests, %d applied, %d clamped, %d rate limited, %d rollback(s)\n",
		s.Requests, s.Applied, s.Clamped, s.RateLimited, s.Rollbacks)
	return nil
}
