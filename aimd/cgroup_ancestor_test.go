package aimd_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestCgroupCPUAncestorQuota: the kernel enforces the CPU quota of every
// ancestor of the process's cgroup, and the binding one is the smallest on
// the way up (a systemd slice with CPUQuota=, a container running systemd
// whose processes sit in init.scope). Only the process's own cgroup was
// read: with "max" there, the reading was against every CPU, NumCPU/quota
// times too low, while the cgroup was throttled (found by a review). The
// usage is read where the binding quota is, since the siblings share it.
// Every cgroup has a cpu.stat (the kernel writes one whether or not the
// controller is enabled there), and Read reads those of every level with a
// quota, as Sample takes the highest of their readings.
func TestCgroupCPUAncestorQuota(t *testing.T) {
	ncpu := float64(runtime.NumCPU())
	for _, tc := range []struct {
		name      string
		files     map[string]string
		cores     float64
		usedMicro int64
	}{
		{"v2, the parent's quota", map[string]string{
			"proc/self/cgroup":                         "0::/kubepods/pod1/app\n",
			"sys/fs/cgroup/cgroup.controllers":         "cpu\n",
			"sys/fs/cgroup/kubepods/cpu.max":           "max 100000\n",
			"sys/fs/cgroup/kubepods/pod1/cpu.max":      "50000 100000\n",
			"sys/fs/cgroup/kubepods/pod1/cpu.stat":     "usage_usec 300\n",
			"sys/fs/cgroup/kubepods/pod1/app/cpu.max":  "max 100000\n",
			"sys/fs/cgroup/kubepods/pod1/app/cpu.stat": "usage_usec 100\n",
		}, 0.5, 300},
		{"v2, the smallest of two", map[string]string{
			"proc/self/cgroup":                         "0::/kubepods/pod1/app\n",
			"sys/fs/cgroup/cgroup.controllers":         "cpu\n",
			"sys/fs/cgroup/kubepods/cpu.max":           "25000 100000\n",
			"sys/fs/cgroup/kubepods/cpu.stat":          "usage_usec 700\n",
			"sys/fs/cgroup/kubepods/pod1/cpu.max":      "50000 100000\n",
			"sys/fs/cgroup/kubepods/pod1/cpu.stat":     "usage_usec 300\n",
			"sys/fs/cgroup/kubepods/pod1/app/cpu.max":  "150000 100000\n",
			"sys/fs/cgroup/kubepods/pod1/app/cpu.stat": "usage_usec 100\n",
		}, 0.25, 700},
		{"v2, the own quota binds", map[string]string{
			"proc/self/cgroup":                         "0::/kubepods/pod1/app\n",
			"sys/fs/cgroup/cgroup.controllers":         "cpu\n",
			"sys/fs/cgroup/kubepods/pod1/cpu.max":      "300000 100000\n",
			"sys/fs/cgroup/kubepods/pod1/cpu.stat":     "usage_usec 200\n",
			"sys/fs/cgroup/kubepods/pod1/app/cpu.max":  "150000 100000\n",
			"sys/fs/cgroup/kubepods/pod1/app/cpu.stat": "usage_usec 100\n",
		}, 1.5, 100},
		{"v2, no quota anywhere", map[string]string{
			"proc/self/cgroup":                         "0::/kubepods/pod1/app\n",
			"sys/fs/cgroup/cgroup.controllers":         "cpu\n",
			"sys/fs/cgroup/kubepods/pod1/cpu.max":      "max 100000\n",
			"sys/fs/cgroup/kubepods/pod1/app/cpu.stat": "usage_usec 100\n",
		}, ncpu, 100},
		{"v1, the parent's quota", map[string]string{
			"proc/self/cgroup": "3:cpu,cpuacct:/docker/abc/sub\n",
			"sys/fs/cgroup/cpu,cpuacct/docker/abc/sub/cpuacct.usage":     "42000\n",
			"sys/fs/cgroup/cpu,cpuacct/docker/abc/sub/cpu.cfs_quota_us":  "-1\n",
			"sys/fs/cgroup/cpu,cpuacct/docker/abc/sub/cpu.cfs_period_us": "100000\n",
			"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpuacct.usage":         "90000\n",
			"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us":      "50000\n",
			"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us":     "100000\n",
		}, 0.5, 90},
		{"v1, separate hierarchies", map[string]string{
			"proc/self/cgroup": "4:cpuacct:/docker/abc/sub\n3:cpu:/docker/abc/sub\n",
			"sys/fs/cgroup/cpuacct/docker/abc/sub/cpuacct.usage": "42000\n",
			"sys/fs/cgroup/cpuacct/docker/abc/cpuacct.usage":     "90000\n",
			"sys/fs/cgroup/cpu/docker/abc/sub/cpu.cfs_quota_us":  "-1\n",
			"sys/fs/cgroup/cpu/docker/abc/sub/cpu.cfs_period_us": "100000\n",
			"sys/fs/cgroup/cpu/docker/abc/cpu.cfs_quota_us":      "150000\n",
			"sys/fs/cgroup/cpu/docker/abc/cpu.cfs_period_us":     "100000\n",
		}, 1.5, 90},
	} {
		t.Run(tc.name, func(t *testing.T) {
			used, cores, err := (&aimd.CgroupCPU{Root: writeFiles(t, tc.files)}).Read()
			require.NoError(t, err)
			require.Equal(t, tc.cores, cores)
			require.Equal(t, time.Duration(tc.usedMicro)*time.Microsecond, used)
		})
	}
}
