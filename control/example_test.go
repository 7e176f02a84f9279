package control_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/tierkit/tierkit/control"
)

// A component registers its knobs; an operator changes one; the audit log
// records it and a rollback restores it.
func Example() {
	reg, _ := control.New(control.Config{})
	batchWindow := 2 * time.Millisecond // the component's setting
	_ = reg.RegisterDuration(control.DurationKnob{
		Name:  "batcher.linger",
		Doc:   "how long a batch waits for more requests",
		Min:   time.Microsecond, // not 0, which batcher reads as its default (see the package doc)
		Max:   50 * time.Millisecond,
		Value: batchWindow,
		Apply: func(v time.Duration) error { batchWindow = v; return nil }, // e.g. SetConfig
	})

	res, _ := reg.Apply(control.Request{Who: "alice", Why: "p99 budget allows it",
		Changes: []control.Change{{Knob: "batcher.linger", Value: control.Duration(time.Second)}}})
	o := res.Changes[0]
	fmt.Println("asked", o.Requested, "got", o.New, "clamped:", o.Clamped, "now", batchWindow)

	_, _ = reg.Rollback("alice", "p99 regressed")
	fmt.Println("after rollback:", batchWindow)
	for _, e := range reg.Audit() {
		fmt.Printf("%s %s %v -> %v rollback_of=%d\n", e.Who, e.Knob, e.Old, e.New, e.RollbackOf)
	}
	// Output:
	// asked 1s got 50ms clamped: true now 50ms
	// after rollback: 2ms
	// alice batcher.linger 2ms -> 50ms rollback_of=0
	// alice batcher.linger 50ms -> 2ms rollback_of=1
}

// A batch applies all or nothing: when one component refuses, the knobs
// changed before it get their old values back.
func ExampleRegistry_Apply_batch() {
	reg, _ := control.New(control.Config{})
	limit, mode := int64(100), "fair"
	_ = reg.RegisterInt(control.IntKnob{Name: "shed.limit", Min: 1, Max: 1000, Value: limit,
		Apply: func(v int64) error { limit = v; return nil }})
	_ = reg.RegisterString(control.StringKnob{Name: "shed.mode", Values: []string{"fair", "fifo", "off"}, Value: mode,
		Apply: func(v string) error {
			if v == "off" {
				return errors.New("refusing to turn shedding off")
			}
			mode = v
			return nil
		}})
	_, err := reg.Apply(control.Request{Who: "agent", Changes: []control.Change{
		{Knob: "shed.limit", Value: control.Int(500)},
		{Knob: "shed.mode", Value: control.String("off")},
	}})
	var ae *control.ApplyError
	fmt.Println(errors.As(err, &ae), ae.Knob, "limit still", limit, "mode", mode)
	// Output:
	// true shed.mode limit still 100 mode fair
}

// Rate limits: a knob with a MinInterval refuses a second change too soon.
func ExampleRegistry_ApplyAt() {
	reg, _ := control.New(control.Config{})
	_ = reg.RegisterFloat(control.FloatKnob{Name: "aimd.target", Min: 0.1, Max: 0.95, Value: 0.7,
		MinInterval: time.Minute, Apply: func(float64) error { return nil }})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	set := func(at time.Time, v float64) error {
		_, err := reg.ApplyAt(at, control.Request{Who: "cron",
			Changes: []control.Change{{Knob: "aimd.target", Value: control.Float(v)}}})
		return err
	}
	fmt.Println(set(t0, 0.8))
	err := set(t0.Add(10*time.Second), 0.9)
	fmt.Println(errors.Is(err, control.ErrRateLimited), err)
	fmt.Println(set(t0.Add(time.Minute), 0.9))
	// Output:
	// <nil>
	// true control: knob "aimd.target" changed too recently; retry after 50s
	// <nil>
}

// The HTTP API takes the same requests as JSON; dry_run previews.
func ExampleRegistry_Handler() {
	reg, _ := control.New(control.Config{})
	_ = reg.RegisterInt(control.IntKnob{Name: "batcher.max_items", Min: 1, Max: 1024, Value: 128,
		Apply: func(int64) error { return nil }})
	srv := httptest.NewServer(http.StripPrefix("/control", reg.Handler()))
	defer srv.Close()

	body := `{"who":"bob","why":"try bigger batches","dry_run":true,
	          "changes":[{"knob":"batcher.max_items","value":4096}]}`
	resp, err := http.Post(srv.URL+"/control/", "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	v, _ := reg.Get("batcher.max_items")
	fmt.Println(resp.Status, "value still", v)
	// Output:
	// 200 OK value still 128
}
