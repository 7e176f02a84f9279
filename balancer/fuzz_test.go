package balancer_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// FuzzStep feeds arbitrary host reports (decoded from bytes) through several runs and
// checks the invariants: no panic, one decision per host in order, every weight finite
// and within [MinWeight, MaxWeight] x TargetMedian, keyspace moved in [0, 1], a known
// state and a reason for every host.
func FuzzStep(f *testing.F) {
	f.Add([]byte{10, 50, 1, 0, 20, 60, 1, 1, 30, 70, 0, 2, 40, 90, 3, 3}, uint8(3))
	f.Add([]byte{255, 255, 255, 255, 0, 0, 0, 0}, uint8(1))
	f.Add([]byte{1, 2, 3}, uint8(5))
	f.Fuzz(func(t *testing.T, data []byte, runs uint8) {
		b, err := balancer.New(balancer.Config{})
		require.NoError(t, err)
		var hosts []balancer.Host
		for i := 0; i+3 < len(data) && len(hosts) < 64; i += 4 {
			hosts = append(hosts, balancer.Host{
				ID:     fmt.Sprint("h", i/4),
				Cores:  1 + float64(data[i]),
				CPU:    float64(data[i+1]) / 128,
				Weight: float64(data[i+2]) / 16,
				Region: fmt.Sprint("r", data[i+3]%3),
				New:    data[i+3]%7 == 0,
			})
		}
		if len(hosts) == 0 {
			return
		}
		for r := range int(runs%6) + 1 {
			res, err := b.Step(t0, hosts)
			require.NoError(t, err)
			checkResult(t, b.Config(), hosts, res) // the property tests' invariants
			require.Len(t, res.Hosts, len(hosts))
			require.True(t, res.State >= balancer.FlatInitial && res.State <= balancer.SteadyDrift)
			require.True(t, res.KeyspaceMoved >= 0 && res.KeyspaceMoved <= 1+1e-9, "moved %v", res.KeyspaceMoved)
			for i, d := range res.Hosts {
				require.Equal(t, hosts[i].ID, d.ID)
				require.False(t, math.IsNaN(d.New) || math.IsInf(d.New, 0))
				require.True(t, d.New >= 0.05-1e-12 && d.New <= 20+1e-9, "weight %v", d.New)
				require.NotEqual(t, "unknown", d.Reason.String())
				hosts[i].Weight, hosts[i].New = d.New, false
				hosts[i].CPU = math.Min(2, hosts[i].CPU*(1+0.01*float64(r)))
			}
		}
	})
}
