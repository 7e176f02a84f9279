package aimd_test

import (
	"testing"
)

// TestCgroupCPUBindingCgroupChange: the usage is read from the cgroup whose
// quota binds, so when that cgroup changes between two samples (the
// slice's quota is removed and the service's own, of the same size, binds
// now; the process is moved to another cgroup) the two usage readings come
// from different counters, and their difference is no measure of the period:
// the slice's counter holds every sibling's CPU since it was made. The quota
// in CPUs is the same, so only the cgroup tells the change. The sample is
// NaN, as across a change of the quota, and the next period is measured on
// the new cgroup's counter.
func TestCgroupCPUBindingCgroupChange(t *testing.T) {
	for _, tc := range []struct {
		name   string
		files  map[string]string
		change func(write func(name, content string))
		stat   string // the counter read after the change
		usage  func(usec int64) string
		base   int64 // its reading at the change, in µs
	}{
		{
			name: "v2, the parent's quota removed, the own equal one binds",
			files: map[string]string{
				"proc/self/cgroup":                     "0::/app.slice/svc\n",
				"sys/fs/cgroup/cgroup.controllers":     "cpu\n",
				"sys/fs/cgroup/app.slice/cpu.max":      "200000 100000\n",
				"sys/fs/cgroup/app.slice/cpu.stat":     "usage_usec 3600000000\n", // an hour of the siblings' CPU
				"sys/fs/cgroup/app.slice/svc/cpu.max":  "200000 100000\n",
				"sys/fs/cgroup/app.slice/svc/cpu.stat": "usage_usec 10000000\n",
			},
			change: func(write func(name, content string)) {
				write("sys/fs/cgroup/app.slice/cpu.max", "max 100000\n")
				write("sys/fs/cgroup/app.slice/svc/cpu.stat", "usage_usec 11000000\n")
				write("sys/fs/cgroup/app.slice/cpu.stat", "usage_usec 3601000000\n")
			},
			stat:  "sys/fs/cgroup/app.slice/svc/cpu.stat",
			usage: func(u int64) string { return "usage_usec " + itoa(u) + "\n" },
			base:  11_000_000,
		},
		{
			name: "v2, moved to another cgroup",
			files: map[string]string{
				"proc/self/cgroup":                 "0::/a\n",
				"sys/fs/cgroup/cgroup.controllers": "cpu\n",
				"sys/fs/cgroup/a/cpu.max":          "100000 100000\n",
				"sys/fs/cgroup/a/cpu.stat":         "usage_usec 1000000\n",
				"sys/fs/cgroup/b/cpu.max":          "100000 100000\n",
				"sys/fs/cgroup/b/cpu.stat":         "usage_usec 500000000\n",
			},
			change: func(write func(name, content string)) {
				write("proc/self/cgroup", "0::/b\n")
			},
			stat:  "sys/fs/cgroup/b/cpu.stat",
			usage: func(u int64) string { return "usage_usec " + itoa(u) + "\n" },
			base:  500_000_000,
		},
		{
			name: "v1, the parent's quota removed, the own equal one binds",
			files: map[string]string{
				"proc/self/cgroup": "3:cpu,cpuacct:/docker/abc/sub\n",
				"sys/fs/cgroup/cpu,cpuacct/docker/abc/sub/cpuacct.usage":     "10000000000\n",
				"sys/fs/cgroup/cpu,cpuacct/docker/abc/sub/cpu.cfs_quota_us":  "100000\n",
				"sys/fs/cgroup/cpu,cpuacct/docker/abc/sub/cpu.cfs_period_us": "100000\n",
				"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpuacct.usage":         "3600000000000\n",
				"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us":      "100000\n",
				"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us":     "100000\n",
			},
			change: func(write func(name, content string)) {
				write("sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "-1\n")
			},
			stat:  "sys/fs/cgroup/cpu,cpuacct/docker/abc/sub/cpuacct.usage",
			usage: func(u int64) string { return itoa(u*1000) + "\n" },
			base:  10_000_000,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readsNaNAcrossChange(t, writeFiles(t, tc.files), "a change of the cgroup read", tc.change,
				func(write func(name, content string), cores float64) {
					// measured on the new cgroup's counter: 90%
					write(tc.stat, tc.usage(tc.base+int64(cores*900_000)))
				})
		})
	}
}
