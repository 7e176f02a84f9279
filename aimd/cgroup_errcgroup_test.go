package aimd_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestCgroupErrorsWrapErrCgroup: every cgroup file that cannot be read or
// holds what the kernel never writes is an error matching [aimd.ErrCgroup]
// with errors.Is, from Read and from Sample (whose reading is then NaN, no
// reading, never 0). They were strings a caller could tell from another
// Signal's error, or from one another, only by their text.
func TestCgroupErrorsWrapErrCgroup(t *testing.T) {
	v2 := func(cpuMax, stat string) map[string]string {
		return map[string]string{"proc/self/cgroup": "0::/\n", "sys/fs/cgroup/cgroup.controllers": "cpu\n",
			"sys/fs/cgroup/cpu.max": cpuMax, "sys/fs/cgroup/cpu.stat": stat}
	}
	v1 := func(quota, period, usage string) map[string]string {
		return map[string]string{"proc/self/cgroup": "3:cpu,cpuacct:/\n",
			"sys/fs/cgroup/cpu,cpuacct/cpuacct.usage":     usage,
			"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us":  quota,
			"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": period}
	}
	noStat := v2("50000 100000\n", "")
	delete(noStat, "sys/fs/cgroup/cpu.stat")
	for _, tc := range []struct {
		name  string
		files map[string]string
	}{
		{"no cgroup files", map[string]string{"proc/self/cgroup": "0::/\n"}},
		{"v2 cpu.max one field", v2("max\n", "usage_usec 1\n")},
		{"v2 cpu.max three fields", v2("1 2 3\n", "usage_usec 1\n")},
		{"v2 cpu.max zero quota", v2("0 100000\n", "usage_usec 1\n")},
		{"v2 cpu.max negative quota", v2("-1 100000\n", "usage_usec 1\n")},
		{"v2 cpu.max garbage quota", v2("lots 100000\n", "usage_usec 1\n")},
		{"v2 cpu.max zero period", v2("max 0\n", "usage_usec 1\n")},
		{"v2 cpu.max garbage period", v2("50000 abc\n", "usage_usec 1\n")},
		{"v2 cpu.stat missing", noStat},
		{"v2 cpu.stat without usage_usec", v2("max 100000\n", "user_usec 1\n")},
		{"v2 cpu.stat garbage usage", v2("max 100000\n", "usage_usec abc\n")},
		{"v2 cpu.stat negative usage", v2("max 100000\n", "usage_usec -1\n")},
		{"v2 cpu.stat usage out of range", v2("max 100000\n", "usage_usec 9223372036854776\n")},
		{"v1 zero quota", v1("0\n", "100000\n", "42\n")},
		{"v1 quota below -1", v1("-5\n", "100000\n", "42\n")},
		{"v1 garbage quota", v1("half\n", "100000\n", "42\n")},
		{"v1 zero period", v1("50000\n", "0\n", "42\n")},
		{"v1 garbage usage", v1("-1\n", "100000\n", "x\n")},
		{"v1 negative usage", v1("-1\n", "100000\n", "-42\n")},
		{"v1 empty usage", v1("-1\n", "100000\n", "")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &aimd.CgroupCPU{Root: writeFiles(t, tc.files)}
			used, cores, err := c.Read()
			require.ErrorIs(t, err, aimd.ErrCgroup, "used %v, cores %v", used, cores)
			assert.ErrorContains(t, err, "aimd: cgroup")
			v, err := c.Sample(time.Unix(100, 0))
			require.ErrorIs(t, err, aimd.ErrCgroup)
			assert.True(t, math.IsNaN(v), "Sample read %v with an error", v)
		})
	}
}
