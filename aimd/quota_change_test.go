package aimd_test

import (
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestCgroupCPUQuotaChange: when the cgroup's CPU quota changes between two
// samples, the moment of the change within the period is unknown, so the
// period's utilization is too: measured against the new quota alone, a cgroup
// that used its whole old quota of 2 CPUs until a cut to 1 CPU half way reads
// 1.5, a reading the quota makes impossible, and a raise reads too low and
// opens the limit. The sample is NaN ("no reading"), and the next period is
// measured against the new quota.
func TestCgroupCPUQuotaChange(t *testing.T) {
	for _, tc := range []struct {
		name          string
		files         map[string]string
		stat          string
		usage         func(usec int64) string
		setQuota      func(cpus int64) map[string]string
		before, after int64 // quota in CPUs
	}{
		{
			name:  "v2",
			files: map[string]string{"proc/self/cgroup": "0::/\n", "sys/fs/cgroup/cgroup.controllers": "cpu\n"},
			stat:  "sys/fs/cgroup/cpu.stat",
			usage: func(u int64) string { return "usage_usec " + itoa(u) + "\n" },
			setQuota: func(cpus int64) map[string]string {
				return map[string]string{"sys/fs/cgroup/cpu.max": itoa(cpus*100000) + " 100000\n"}
			},
			before: 2, after: 1,
		},
		{
			name:  "v2 raise",
			files: map[string]string{"proc/self/cgroup": "0::/\n", "sys/fs/cgroup/cgroup.controllers": "cpu\n"},
			stat:  "sys/fs/cgroup/cpu.stat",
			usage: func(u int64) string { return "usage_usec " + itoa(u) + "\n" },
			setQuota: func(cpus int64) map[string]string {
				return map[string]string{"sys/fs/cgroup/cpu.max": itoa(cpus*100000) + " 100000\n"}
			},
			before: 1, after: 4,
		},
		{
			name:  "v1",
			files: map[string]string{"proc/self/cgroup": "2:cpuacct:/\n1:cpu:/\n", "sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n"},
			stat:  "sys/fs/cgroup/cpuacct/cpuacct.usage",
			usage: func(u int64) string { return itoa(u*1000) + "\n" },
			setQuota: func(cpus int64) map[string]string {
				return map[string]string{"sys/fs/cgroup/cpu/cpu.cfs_quota_us": itoa(cpus*100000) + "\n"}
			},
			before: 2, after: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.files[tc.stat] = tc.usage(0)
			for k, v := range tc.setQuota(tc.before) {
				tc.files[k] = v
			}
			// The whole old quota for half a second, the whole new one for
			// the other half; then 90% of the new quota.
			used := (tc.before + tc.after) * 500_000
			readsNaNAcrossChange(t, writeFiles(t, tc.files), fmt.Sprintf("a quota change of %d to %d CPUs", tc.before, tc.after),
				func(write func(name, content string)) {
					write(tc.stat, tc.usage(used))
					for k, v := range tc.setQuota(tc.after) {
						write(k, v)
					}
				},
				func(write func(name, content string), _ float64) {
					write(tc.stat, tc.usage(used+tc.after*900_000))
				})
		})
	}
}

// TestProcessCPUGOMAXPROCSChange: ProcessCPU without Cores measures against
// GOMAXPROCS, which the runtime changes when the container's quota changes
// (or a caller sets it); a period across the change reads NaN, like
// CgroupCPU across a quota change.
func TestProcessCPUGOMAXPROCSChange(t *testing.T) {
	prev := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	next := 2 * prev
	var p aimd.ProcessCPU
	start := time.Now()
	_, err := p.Sample(start)
	require.NoError(t, err)
	runtime.GOMAXPROCS(next)
	v, err := p.Sample(start.Add(time.Second))
	require.NoError(t, err)
	assert.True(t, math.IsNaN(v), "a period across GOMAXPROCS %d to %d reads %v, want NaN", prev, next, v)
	v, err = p.Sample(start.Add(2 * time.Second))
	require.NoError(t, err)
	assert.False(t, math.IsNaN(v), "the next period is measured against the new GOMAXPROCS")
}
