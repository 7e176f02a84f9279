package aimd_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestCgroupCPUOutsideNamespaceRoot: in a cgroup namespace, a process whose
// cgroup lies outside the namespace's root sees its path in
// /proc/self/cgroup relative to that root, with ".." components
// (cgroup_namespaces(7)). Such a path is not under the mount point and falls
// back to it, as a path the namespace hides does. Joined as it was, "/.."
// named the directory above the mount point, which exists, and the reading
// failed for want of a cpu.stat (cpuacct.usage in v1) there.
func TestCgroupCPUOutsideNamespaceRoot(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
	}{
		{"v2", map[string]string{
			"proc/self/cgroup":                 "0::/..\n",
			"sys/fs/cgroup/cgroup.controllers": "cpu\n",
			"sys/fs/cgroup/cpu.stat":           "usage_usec 100\n",
		}},
		{"v1", map[string]string{
			"proc/self/cgroup":                            "3:cpu,cpuacct:/..\n",
			"sys/fs/cgroup/cpu,cpuacct/cpuacct.usage":     "100000\n",
			"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us":  "-1\n",
			"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			used, cores, err := (&aimd.CgroupCPU{Root: writeFiles(t, tc.files)}).Read()
			require.NoError(t, err)
			require.Equal(t, float64(runtime.NumCPU()), cores)
			require.Equal(t, 100*time.Microsecond, used)
		})
	}
}

// TestCgroupCPUOutsideNamespaceBackByName: a path outside the namespace's
// root that goes up and down again through a directory named as the mount
// point's ("/../cgroup/a": the cgroup cgroup/a beside the namespace's root)
// is outside the namespace too. Joined to the mount point and cleaned, it
// named the namespace's own cgroup a, whose quota and usage were read as the
// process's.
func TestCgroupCPUOutsideNamespaceBackByName(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
	}{
		{"v2", map[string]string{
			"proc/self/cgroup":                 "0::/../cgroup/a\n",
			"sys/fs/cgroup/cgroup.controllers": "cpu\n",
			"sys/fs/cgroup/cpu.stat":           "usage_usec 100\n",
			"sys/fs/cgroup/a/cpu.max":          "50000 100000\n",
			"sys/fs/cgroup/a/cpu.stat":         "usage_usec 7\n",
		}},
		{"v1", map[string]string{
			"proc/self/cgroup":                              "3:cpu,cpuacct:/../cpu,cpuacct/a\n",
			"sys/fs/cgroup/cpu,cpuacct/cpuacct.usage":       "100000\n",
			"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us":    "-1\n",
			"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us":   "100000\n",
			"sys/fs/cgroup/cpu,cpuacct/a/cpuacct.usage":     "7000\n",
			"sys/fs/cgroup/cpu,cpuacct/a/cpu.cfs_quota_us":  "50000\n",
			"sys/fs/cgroup/cpu,cpuacct/a/cpu.cfs_period_us": "100000\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			used, cores, err := (&aimd.CgroupCPU{Root: writeFiles(t, tc.files)}).Read()
			require.NoError(t, err)
			require.Equal(t, float64(runtime.NumCPU()), cores)
			require.Equal(t, 100*time.Microsecond, used)
		})
	}
}
