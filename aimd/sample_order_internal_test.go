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

// TestCPUSignalsKeepNewestSample: two samples of one signal can overlap (a
// Tick and a lazy step, or two Limiters sharing it). Here the first takes its
// time at t0+1s and stalls; the second takes t0+2s and completes, reading
// 1.8 s of CPU; then the first reads the counter, by now at 1.9 s. The usage
// was read outside the lock and stored whatever the times, so the stalled
// sample stored the newer usage with its older time, and the next period,
// 0.9 s of CPU in the second to t0+3s, read (2.7-1.9)/2 = 0.4. The stalled
// sample now reads NaN and leaves the newer one in place.
func TestCPUSignalsKeepNewestSample(t *testing.T) {
	t0 := time.Unix(100, 0)
	run := func(t *testing.T, sig Signal, set func(time.Duration)) {
		t.Helper()
		set(0)
		v, err := sig.Sample(t0)
		require.NoError(t, err)
		require.True(t, math.IsNaN(v))
		set(1800 * time.Millisecond)
		v, err = sig.Sample(t0.Add(2 * time.Second)) // the newer sample
		require.NoError(t, err)
		assert.InDelta(t, 0.9, v, 1e-9)
		set(1900 * time.Millisecond)
		v, err = sig.Sample(t0.Add(time.Second)) // the stalled one, its time older
		require.NoError(t, err)
		assert.True(t, math.IsNaN(v), "a sample older than the last reads %v, want NaN", v)
		set(2700 * time.Millisecond)
		v, err = sig.Sample(t0.Add(3 * time.Second))
		require.NoError(t, err)
		assert.InDelta(t, 0.9, v, 1e-9, "the period after the newest sample")
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
