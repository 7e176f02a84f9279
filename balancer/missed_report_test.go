package balancer_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestMissedReportIsNoJoin: a host left out of one run (its load report was lost)
// and back in the next, with its weight and not marked New, has not joined the
// tier. It was forgotten as soon as it was absent, so its return counted as a
// join: one host of 50 is over ChurnShare, and the tier was classified as in
// task churn for ChurnWindow runs, the returning host corrected as a young one
// at full gain outside the throttle. A host marked New does join, and so does
// one absent for longer than ChurnWindow runs.
func TestMissedReportIsNoJoin(t *testing.T) {
	const n, every = 50, 10 * time.Second
	for _, tt := range []struct {
		name   string
		absent int  // runs h0 misses, after the first
		isNew  bool // h0 comes back marked New
		want   balancer.State
	}{
		{"one missed report", 1, false, balancer.SteadyDrift},
		{"three missed reports", 3, false, balancer.SteadyDrift},
		{"absent for ChurnWindow runs", 12, false, balancer.SteadyDrift},
		{"replaced task under its ID", 1, true, balancer.TaskChurn},
		{"back after more than ChurnWindow runs", 13, false, balancer.TaskChurn},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := mustNew(t, balancer.Config{})
			hosts := make([]balancer.Host, n)
			for i := range hosts {
				hosts[i] = balancer.Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: 1, CPU: 0.5}
			}
			now := t0
			step := func(in []balancer.Host) balancer.Result {
				t.Helper()
				now = now.Add(every)
				res, err := b.Step(now, in)
				require.NoError(t, err)
				return res
			}
			require.Equal(t, balancer.SteadyDrift, step(hosts).State)
			for range tt.absent {
				res := step(hosts[1:])
				require.Equal(t, balancer.SteadyDrift, res.State, res.Evidence)
			}
			back := append([]balancer.Host(nil), hosts...)
			back[0].New = tt.isNew
			if tt.isNew {
				back[0].Weight, back[0].CPU = 0, 0
			}
			res := step(back)
			require.Equal(t, tt.want, res.State, res.Evidence)
		})
	}
}
