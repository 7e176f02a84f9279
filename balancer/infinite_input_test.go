package balancer_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestStepRejectsInfiniteInput: a CPU, cores or weight of +Inf (or a CPU of
// -Inf) is an unusable record, as NaN is. Accepted (the checks removed), an
// infinite CPU published NaN for every weight, infinite cores made the host a
// hot outlier (efficiency 0), and an infinite weight read NaN keyspace moved.
// Step returns a *HostError naming the field, counts the rejection and changes
// nothing; accepting any of them passed the whole suite.
func TestStepRejectsInfiniteInput(t *testing.T) {
	for _, tt := range []struct {
		name string
		give balancer.Host
		want string
	}{
		{"+Inf cpu", balancer.Host{ID: "x", Cores: 32, Weight: 1, CPU: math.Inf(1)}, "CPU"},
		{"-Inf cpu", balancer.Host{ID: "x", Cores: 32, Weight: 1, CPU: math.Inf(-1)}, "CPU"},
		{"+Inf cores", balancer.Host{ID: "x", Cores: math.Inf(1), Weight: 1, CPU: 0.5}, "cores"},
		{"+Inf weight", balancer.Host{ID: "x", Cores: 32, Weight: math.Inf(1), CPU: 0.5}, "weight"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := mustNew(t, balancer.Config{})
			var hosts []balancer.Host
			for i := range 10 {
				hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: 1, CPU: 0.5})
			}
			_, err := b.Step(t0, append(hosts, tt.give))
			var he *balancer.HostError
			require.True(t, errors.As(err, &he), "%v", err)
			assert.Equal(t, "x", he.ID)
			assert.Equal(t, 10, he.Index)
			assert.Contains(t, he.Reason, tt.want)
			st := b.Stats()
			assert.Equal(t, uint64(1), st.Rejected)
			assert.Zero(t, st.Runs)
			// nothing changed: the next run is the first
			res, err := b.Step(t0, hosts)
			require.NoError(t, err)
			assert.Equal(t, uint64(1), res.Run)
		})
	}
}
