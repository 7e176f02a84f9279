package aimd

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSetConfigKeepsDefaultSignal: a Config without a Signal gets a default
// CPU signal. SetConfig built a new one each time, whose first sample is
// NaN: the step after each SetConfig had no reading, and a control plane
// re-publishing its settings every period froze the loop (found by a
// review). The default signal, and its baseline, now survive SetConfig; a
// Signal given explicitly replaces it, and a nil one after that makes a
// default again.
func TestSetConfigKeepsDefaultSignal(t *testing.T) {
	cfg := Config{Manual: true, Initial: 10, Max: 1000, MemoryLimit: -1}
	l, err := New(cfg)
	require.NoError(t, err)
	first := l.cfg.Signal
	require.True(t, l.cfg.defaultSig)
	for i := range 3 {
		c := cfg
		c.Target = 0.8 + 0.01*float64(i)
		require.NoError(t, l.SetConfig(c))
		require.Same(t, first, l.cfg.Signal, "SetConfig %d replaced the default signal", i)
	}
	mine := SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })
	c := cfg
	c.Signal = mine
	require.NoError(t, l.SetConfig(c))
	require.False(t, l.cfg.defaultSig)
	require.NoError(t, l.SetConfig(cfg))
	require.True(t, l.cfg.defaultSig)
	require.NotSame(t, first, l.cfg.Signal, "a default made after a Signal of the caller's is a new one")
}

// TestUpdateHugeGainAtTarget: at the target the headroom is 0, and with a
// Gain so large that Gain x limit overflows, Inf x 0 made the limit NaN,
// which clamps to Min: a reading at the target dropped the limit from 500
// to 1 (found by a review). At the target only Increase is added.
func TestUpdateHugeGainAtTarget(t *testing.T) {
	p := Params{Target: 0.9, Increase: 1, Gain: 1e306, Decrease: 0.7, Min: 1, Max: 1000}
	for _, tc := range []struct {
		load, want float64
	}{{0.9, 501}, {0.45, 1000}, {0.95, 500 * (1 - 0.05/0.95)}} {
		require.InDelta(t, tc.want, Update(500, tc.load, p), 1e-9, "load %v", tc.load)
	}
}

// TestDefaultSignalQuotaAboveCPUs: the default signal is the cgroup's
// accounting only when its quota is no more than the CPUs the process can
// run on. Above them CgroupCPU measures against the quota and never reads 1
// (a 2-CPU quota on 1 CPU reads at most 0.5), so the loop never saw its
// target and opened the limit to Max whatever the load (found by a review);
// ProcessCPU measures against GOMAXPROCS, which the runtime caps at those
// CPUs.
func TestDefaultSignalQuotaAboveCPUs(t *testing.T) {
	n := runtime.NumCPU()
	for _, tc := range []struct {
		cpuMax string
		cgroup bool
	}{
		{"50000 100000", true},
		{fmt.Sprintf("%d 100000", n*100000), true},
		{fmt.Sprintf("%d 100000", n*100000+1), false},
		{fmt.Sprintf("%d 100000", 2*n*100000), false},
		{"max 100000", true},
	} {
		root := t.TempDir()
		for name, content := range map[string]string{
			"proc/self/cgroup":                 "0::/\n",
			"sys/fs/cgroup/cgroup.controllers": "cpu\n",
			"sys/fs/cgroup/cpu.max":            tc.cpuMax + "\n",
			"sys/fs/cgroup/cpu.stat":           "usage_usec 1\n",
		} {
			p := filepath.Join(root, name)
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		}
		sig := defaultSignalIn(root)
		_, isCgroup := sig.(*CgroupCPU)
		require.Equal(t, tc.cgroup, isCgroup, "cpu.max %q on %d CPUs: default signal %T", tc.cpuMax, n, sig)
	}
}
