package aimd_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestCgroupMalformedQuota: a CPU quota file the kernel never writes (a period of 0,
// a quota of 0 or below -1, a period that is not a number after "max") or cannot be
// read is an error, as the other malformed cgroup files are; it read as "no quota",
// measuring against every CPU of the machine. Every error names the package.
func TestCgroupMalformedQuota(t *testing.T) {
	v2 := func(cpuMax, stat string) map[string]string {
		return map[string]string{"proc/self/cgroup": "0::/\n", "sys/fs/cgroup/cgroup.controllers": "cpu\n",
			"sys/fs/cgroup/cpu.max": cpuMax, "sys/fs/cgroup/cpu.stat": stat}
	}
	v1 := func(quota, period string) map[string]string {
		return map[string]string{"proc/self/cgroup": "3:cpu,cpuacct:/\n",
			"sys/fs/cgroup/cpu,cpuacct/cpuacct.usage":     "42\n",
			"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us":  quota,
			"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": period}
	}
	unreadable := v2("", "usage_usec 1\n")
	delete(unreadable, "sys/fs/cgroup/cpu.max")
	unreadable["sys/fs/cgroup/cpu.max/not-a-file"] = "" // cpu.max is a directory
	for name, files := range map[string]map[string]string{
		"v2 max with a zero period":    v2("max 0\n", "usage_usec 1\n"),
		"v2 max with a garbage period": v2("max abc\n", "usage_usec 1\n"),
		"v2 cpu.max unreadable":        unreadable,
		"v2 garbage usage":             v2("max 100000\n", "usage_usec abc\n"),
		"v1 zero period":               v1("50000\n", "0\n"),
		"v1 no quota, zero period":     v1("-1\n", "0\n"),
		"v1 zero quota":                v1("0\n", "100000\n"),
		"v1 quota below -1":            v1("-5\n", "100000\n"),
	} {
		t.Run(name, func(t *testing.T) {
			c := &aimd.CgroupCPU{Root: writeFiles(t, files)}
			used, cores, err := c.Read()
			require.Error(t, err, "used %v, cores %v", used, cores)
			assert.ErrorContains(t, err, "aimd:")
		})
	}
	t.Run("v1 no quota", func(t *testing.T) {
		c := &aimd.CgroupCPU{Root: writeFiles(t, v1("-1\n", "100000\n"))}
		_, cores, err := c.Read()
		require.NoError(t, err)
		assert.Equal(t, float64(runtime.NumCPU()), cores)
	})
}
