package aimd_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestCgroupCPUBindingAncestor: the kernel throttles a cgroup when any level
// on its way up has used its quota, not only the level with the smallest one.
// Here the process's cgroup has 0.5 CPU and uses 0.1 of it, while its parent
// has 1 CPU and the parent's other children use 0.85: the parent has used
// 0.95 of its quota and binds. Only the smallest quota's level was read
// (0.1/0.5 = 0.2), so the loop opened the limit into a throttled cgroup;
// the reading is the highest usage over quota of every level with a quota.
func TestCgroupCPUBindingAncestor(t *testing.T) {
	for _, tc := range []struct {
		name        string
		files       map[string]string
		own, parent string
		usage       func(usec int64) string
	}{
		{
			name: "v2",
			files: map[string]string{
				"proc/self/cgroup":                   "0::/slice/app\n",
				"sys/fs/cgroup/cgroup.controllers":   "cpu\n",
				"sys/fs/cgroup/slice/cpu.max":        "100000 100000\n",
				"sys/fs/cgroup/slice/app/cpu.max":    "50000 100000\n",
				"sys/fs/cgroup/slice/other/cpu.max":  "max 100000\n",
				"sys/fs/cgroup/slice/other/cpu.stat": "usage_usec 0\n",
			},
			own: "sys/fs/cgroup/slice/app/cpu.stat", parent: "sys/fs/cgroup/slice/cpu.stat",
			usage: func(u int64) string { return "usage_usec " + itoa(u) + "\nuser_usec 0\n" },
		},
		{
			name: "v1",
			files: map[string]string{
				"proc/self/cgroup": "3:cpu,cpuacct:/slice/app\n",
				"sys/fs/cgroup/cpu,cpuacct/slice/cpu.cfs_quota_us":      "100000\n",
				"sys/fs/cgroup/cpu,cpuacct/slice/cpu.cfs_period_us":     "100000\n",
				"sys/fs/cgroup/cpu,cpuacct/slice/app/cpu.cfs_quota_us":  "50000\n",
				"sys/fs/cgroup/cpu,cpuacct/slice/app/cpu.cfs_period_us": "100000\n",
			},
			own: "sys/fs/cgroup/cpu,cpuacct/slice/app/cpuacct.usage", parent: "sys/fs/cgroup/cpu,cpuacct/slice/cpuacct.usage",
			usage: func(u int64) string { return itoa(u*1000) + "\n" },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.files[tc.own] = tc.usage(10_000_000)
			tc.files[tc.parent] = tc.usage(50_000_000)
			root := writeFiles(t, tc.files)
			write := func(name string, usec int64) {
				require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(tc.usage(usec)), 0o644))
			}
			c := &aimd.CgroupCPU{Root: root}
			now := time.Unix(100, 0)
			v, err := c.Sample(now)
			require.NoError(t, err)
			require.True(t, math.IsNaN(v))

			// In one second: the process 0.1 s, its siblings 0.85 s.
			write(tc.own, 10_100_000)
			write(tc.parent, 50_950_000)
			v, err = c.Sample(now.Add(time.Second))
			require.NoError(t, err)
			assert.InDelta(t, 0.95, v, 1e-9, "the parent's 0.95 of 1 CPU binds, not the own 0.1 of 0.5")

			// The siblings idle: the own level binds, 0.4 of 0.5 CPU.
			write(tc.own, 10_500_000)
			write(tc.parent, 51_350_000)
			v, err = c.Sample(now.Add(2 * time.Second))
			require.NoError(t, err)
			assert.InDelta(t, 0.8, v, 1e-9, "the own level's 0.4 of 0.5 CPU")
		})
	}
}
