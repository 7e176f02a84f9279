package aimd

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCPUSignalsZeroElapsedKeepsUsage: a sample at the same time as the
// previous one (two steps stamped alike, such as a Tick and a lazy step on
// one explicit time) covers no time: it reads NaN. It also replaced the
// previous reading with its own, so the usage counted between the two was
// dropped while their shared time stayed the start of the next period: 0.9 s
// of CPU in the second to t0+2s, 0.4 s of it after the repeated sample, read
// 0.4, not 0.9. The repeated sample now leaves the previous one in place.
func TestCPUSignalsZeroElapsedKeepsUsage(t *testing.T) {
	t0 := time.Unix(100, 0)
	run := func(t *testing.T, sig Signal, set func(time.Duration)) {
		t.Helper()
		set(0)
		v, err := sig.Sample(t0)
		require.NoError(t, err)
		require.True(t, math.IsNaN(v))
		set(500 * time.Millisecond)
		v, err = sig.Sample(t0.Add(time.Second))
		require.NoError(t, err)
		assert.InDelta(t, 0.5, v, 1e-9)
		set(time.Second)
		v, err = sig.Sample(t0.Add(time.Second)) // no time elapsed
		require.NoError(t, err)
		assert.True(t, math.IsNaN(v), "a period of no time reads %v, want NaN", v)
		set(1400 * time.Millisecond)
		v, err = sig.Sample(t0.Add(2 * time.Second))
		require.NoError(t, err)
		assert.InDelta(t, 0.9, v, 1e-9, "the period after a repeated sample lost the usage counted at it")
	}
	t.Run("ProcessCPU", func(t *testing.T) {
		var cpu time.Duration
		prev := readCPUTime
		t.Cleanup(func() { readCPUTime = prev })
		readCPUTime = func() (time.Duration, error) { return cpu, nil }
		run(t, &ProcessCPU{Cores: 1}, func(d time.Duration) { cpu = d })
	})
	t.Run("CgroupCPU", func(t *testing.T) {
		root := t.TempDir()
		write := func(name, content string) {
			p := filepath.Join(root, name)
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		}
		write("proc/self/cgroup", "0::/\n")
		write("sys/fs/cgroup/cgroup.controllers", "cpu\n")
		write("sys/fs/cgroup/cpu.max", "100000 100000\n")
		run(t, &CgroupCPU{Root: root}, func(d time.Duration) {
			write("sys/fs/cgroup/cpu.stat", "usage_usec "+strconv.FormatInt(int64(d/time.Microsecond), 10)+"\n")
		})
	})
}
