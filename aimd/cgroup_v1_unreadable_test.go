package aimd_test

import (
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestCgroupV1UsageUnreadable: a cgroup v1 cpuacct.usage that is there but
// cannot be read is an error that says so and wraps the cause, as an
// unreadable cgroup v2 cpu.stat or v1 CFS quota is. It read as "no cgroup
// v2 cpu.stat or v1 cpuacct.usage found", with the cause dropped: a caller
// (or an operator reading the log) looked for a missing mount, not for a
// permission to grant.
func TestCgroupV1UsageUnreadable(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"co-mounted": {
			"proc/self/cgroup": "3:cpu,cpuacct:/a\n",
			"sys/fs/cgroup/cpu,cpuacct/a/cpu.cfs_quota_us":  "50000\n",
			"sys/fs/cgroup/cpu,cpuacct/a/cpu.cfs_period_us": "100000\n",
			"sys/fs/cgroup/cpu,cpuacct/a/cpuacct.usage/x":   "", // a directory: EISDIR
		},
		"separate hierarchies": {
			"proc/self/cgroup":                        "2:cpuacct:/a\n1:cpu:/a\n",
			"sys/fs/cgroup/cpu/a/cpu.cfs_quota_us":    "-1\n",
			"sys/fs/cgroup/cpu/a/cpu.cfs_period_us":   "100000\n",
			"sys/fs/cgroup/cpuacct/a/cpuacct.usage/x": "",
		},
	} {
		t.Run(name, func(t *testing.T) {
			c := &aimd.CgroupCPU{Root: writeFiles(t, files)}
			_, _, err := c.Read()
			require.Error(t, err)
			var pe *fs.PathError
			assert.ErrorAs(t, err, &pe, "the cause is kept")
			assert.ErrorContains(t, err, "aimd: cgroup v1")
			assert.ErrorContains(t, err, "cpuacct.usage")
			assert.NotContains(t, err.Error(), " found")
		})
	}
}
