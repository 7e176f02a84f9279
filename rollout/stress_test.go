package rollout_test

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/rollout"
)

// TestStressDecideDuringSetConfig races Decide, Config and Stats against
// SetConfig swapping between two configurations that disagree on many keys (a
// broad ramp and narrow exceptions in one, other percentages, a region filter
// and a salt in the other), checking the package's promise that a decision sees
// the old or the new configuration, never a mix: every Decision equals the one
// a Flags holding only A, or only B, gives, and every Stats is one of theirs.
func TestStressDecideDuringSetConfig(t *testing.T) {
	var a, b rollout.Config
	for i := range 12 { // 12 rules per service: the per-length map path
		p := "k" + strconv.Itoa(i)
		a.Rules = append(a.Rules, rollout.Rule{Service: "s", Prefix: p, Percent: float64(10 * (i % 11))})
		b.Rules = append(b.Rules, rollout.Rule{Service: "s", Prefix: p, Percent: float64(100 - 7*i),
			Regions: []string{"r1"}, Salt: "b"})
	}
	a.Rules = append(a.Rules, rollout.Rule{Service: "s", Percent: 50})
	fa, err := rollout.New(a)
	require.NoError(t, err)
	fb, err := rollout.New(b)
	require.NoError(t, err)
	f, err := rollout.New(a)
	require.NoError(t, err)

	queries := make([]rollout.Query, 0, 512)
	for i := range cap(queries) {
		queries = append(queries, rollout.Query{Service: "s", Key: "k" + strconv.Itoa(i%40) + ":" + strconv.Itoa(i),
			Region: "r" + strconv.Itoa(i%3)})
	}
	wantA := make([]rollout.Decision, len(queries))
	wantB := make([]rollout.Decision, len(queries))
	differ := 0
	for i, q := range queries {
		wantA[i], wantB[i] = fa.Decide(q), fb.Decide(q)
		if wantA[i] != wantB[i] {
			differ++
		}
	}
	require.Greater(t, differ, len(queries)/2, "the two configurations must disagree often")

	var stop atomic.Bool
	var wg sync.WaitGroup
	const swaps = 2000
	wg.Go(func() {
		defer stop.Store(true)
		for i := range swaps {
			cfg := a
			if i%2 == 0 {
				cfg = b
			}
			if err := f.SetConfig(cfg); err != nil {
				t.Error(err)
				return
			}
		}
	})
	for r := range 2 {
		wg.Go(func() {
			for n := r; !stop.Load(); n++ {
				i := n % len(queries)
				if d := f.Decide(queries[i]); d != wantA[i] && d != wantB[i] {
					t.Errorf("query %+v: decision %+v is neither A's %+v nor B's %+v", queries[i], d, wantA[i], wantB[i])
					return
				}
				if s := f.Stats(); s.Rules != len(a.Rules) && s.Rules != len(b.Rules) {
					t.Errorf("Stats.Rules = %d, want %d or %d", s.Rules, len(a.Rules), len(b.Rules))
					return
				}
			}
		})
	}
	wg.Wait()
	s := f.Stats()
	require.Equal(t, uint64(1+swaps), s.Swaps, "New and every SetConfig counted once")
	require.Zero(t, s.Rejected)
}
