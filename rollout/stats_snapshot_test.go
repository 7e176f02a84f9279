package rollout_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/tierkit/tierkit/rollout"
)

// Stats is a snapshot: under a concurrent SetConfig its figures belong to one
// moment. A writer alternates an accepted Config whose rule count encodes the
// swap count (1 + Swaps%4 rules) with a rejected one, so at every moment
// Rules-1 == Swaps%4 and Swaps-2 <= Rejected <= Swaps-1. Reading the swap
// counter, the rejected counter and the table separately mixed them.
func TestStatsSnapshotUnderSetConfig(t *testing.T) {
	cfg := func(swaps uint64) rollout.Config {
		var c rollout.Config
		for i := range 1 + swaps%4 {
			c.Rules = append(c.Rules, rollout.Rule{Service: "s", Prefix: fmt.Sprint(i), Percent: 50})
		}
		return c
	}
	f, err := rollout.New(cfg(1))
	if err != nil {
		t.Fatal(err)
	}
	bad := rollout.Config{Rules: []rollout.Rule{{Service: ""}}}
	var done atomic.Bool
	exited := make(chan struct{})
	defer func() { done.Store(true); <-exited }()
	go func() {
		defer close(exited)
		defer done.Store(true)
		for s := uint64(2); s < 20_000 && !done.Load(); s++ {
			if err := f.SetConfig(cfg(s)); err != nil {
				t.Error(err)
				return
			}
			if f.SetConfig(bad) == nil {
				t.Error("invalid Config accepted")
				return
			}
		}
	}()
	for !done.Load() {
		st := f.Stats()
		if uint64(st.Rules-1) != st.Swaps%4 || st.Rejected+2 < st.Swaps || st.Rejected+1 > st.Swaps {
			t.Fatalf("Stats mixes moments: %+v", st)
		}
	}
}
