package aimd_test

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestCgroupCPUCounterReset: a cumulative usage counter that goes backwards
// (the container restarted, the cgroup was recreated) says nothing about the
// load of the period: the sample is NaN ("no reading"), not 0 (an idle
// reading that opens the limit by the whole headroom), and the next sample
// measures from the reset.
func TestCgroupCPUCounterReset(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		stat       func(usec int64) string
		files      map[string]string
	}{
		{"v2", "sys/fs/cgroup/cpu.stat", func(u int64) string { return "usage_usec " + itoa(u) + "\n" },
			map[string]string{"proc/self/cgroup": "0::/\n", "sys/fs/cgroup/cgroup.controllers": "cpu\n", "sys/fs/cgroup/cpu.max": "100000 100000\n"}},
		{"v1", "sys/fs/cgroup/cpuacct/cpuacct.usage", func(u int64) string { return itoa(u*1000) + "\n" },
			map[string]string{"proc/self/cgroup": "2:cpuacct:/\n1:cpu:/\n", "sys/fs/cgroup/cpu/cpu.cfs_quota_us": "100000\n", "sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.files[tc.file] = tc.stat(50_000_000)
			root := writeFiles(t, tc.files)
			write := func(usec int64) {
				require.NoError(t, os.WriteFile(filepath.Join(root, tc.file), []byte(tc.stat(usec)), 0o644))
			}
			c := &aimd.CgroupCPU{Root: root}
			now := time.Unix(100, 0)
			_, err := c.Sample(now)
			require.NoError(t, err)
			write(100_000) // restarted: 0.1 s used since
			v, err := c.Sample(now.Add(time.Second))
			require.NoError(t, err)
			assert.True(t, math.IsNaN(v), "a counter that went backwards reads %v, want NaN", v)
			write(1_000_000) // 0.9 s of CPU in the next second, one CPU
			v, err = c.Sample(now.Add(2 * time.Second))
			require.NoError(t, err)
			assert.InDelta(t, 0.9, v, 1e-9)
		})
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
