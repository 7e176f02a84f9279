package aimd_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestCgroupCPUAncestorQuotaTie: when the process's cgroup and an ancestor
// have the same quota, the ancestor's binds first: its usage counts the
// siblings that share it, so it is at least the cgroup's own. The cgroup's
// own was read: with siblings taking 0.8 of a shared 1-CPU quota, a process
// using the 0.2 left read 20% while its slice was throttled.
func TestCgroupCPUAncestorQuotaTie(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
	}{
		{"v2", map[string]string{
			"proc/self/cgroup":                   "0::/slice/app\n",
			"sys/fs/cgroup/cgroup.controllers":   "cpu\n",
			"sys/fs/cgroup/slice/cpu.max":        "100000 100000\n",
			"sys/fs/cgroup/slice/cpu.stat":       "usage_usec 1000\n",
			"sys/fs/cgroup/slice/app/cpu.max":    "100000 100000\n",
			"sys/fs/cgroup/slice/app/cpu.stat":   "usage_usec 200\n",
			"sys/fs/cgroup/slice/other/cpu.stat": "usage_usec 800\n",
			"sys/fs/cgroup/slice/other/cpu.max":  "max 100000\n",
		}},
		{"v1", map[string]string{
			"proc/self/cgroup": "3:cpu,cpuacct:/slice/app\n",
			"sys/fs/cgroup/cpu,cpuacct/slice/cpuacct.usage":         "1000000\n",
			"sys/fs/cgroup/cpu,cpuacct/slice/cpu.cfs_quota_us":      "100000\n",
			"sys/fs/cgroup/cpu,cpuacct/slice/cpu.cfs_period_us":     "100000\n",
			"sys/fs/cgroup/cpu,cpuacct/slice/app/cpuacct.usage":     "200000\n",
			"sys/fs/cgroup/cpu,cpuacct/slice/app/cpu.cfs_quota_us":  "100000\n",
			"sys/fs/cgroup/cpu,cpuacct/slice/app/cpu.cfs_period_us": "100000\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			used, cores, err := (&aimd.CgroupCPU{Root: writeFiles(t, tc.files)}).Read()
			require.NoError(t, err)
			require.Equal(t, 1.0, cores)
			require.Equal(t, time.Millisecond, used, "the shared slice's usage, not the cgroup's own")
		})
	}
}
