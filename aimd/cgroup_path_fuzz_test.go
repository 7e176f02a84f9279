package aimd_test

import (
	"path"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tierkit/tierkit/aimd"
)

// FuzzCgroupSelf reads an arbitrary /proc/self/cgroup over a fixed cgroup
// tree, v2 or v1 (cpu and cpuacct mounted together): the mount point, "a"
// with a quota of half a CPU, "a/b" and "c" without one, each with its own
// usage, and, outside the mount point, a decoy cgroup with a quota of a tenth
// of a CPU. The process's cgroup is that of the first line of its hierarchy
// (v2: no controllers; v1: a list holding cpu, or cpuacct for the usage): the
// directory the path names under the mount point, or the mount point itself
// when it names no directory there (one outside, one that does not exist, a
// file, a malformed file). The reading is that cgroup's: half a CPU and a's
// usage under a, else its own usage against every CPU; never the decoy's.
func FuzzCgroupSelf(f *testing.F) {
	for _, s := range []string{"0::/a\n", "0::/a/b\n", "0::/c\n", "0::/\n", "0::/../cgroupx\n",
		"0::/a/../../cgroupx\n", "0::/c (deleted)\n", "0::/a/cpu.max\n", "0::/cgroup.controllers\n",
		"1:name=systemd:/c\n0::/a/b\n", "0::/c\n0::/a\n", "0:/a\n", "::::\n", "",
		"3:cpu,cpuacct:/a\n", "3:cpuacct,cpu:/a/b\n", "3:cpu:/c\n4:cpuacct:/a\n", "3:cpu,cpuacct:/../../cgroupx\n",
		"3:cpu,cpuacct:/a/cpu.cfs_quota_us\n", "2:cpuset:/a\n3:cpuacct:/c\n3:cpu:/a\n"} {
		f.Add(false, s)
		f.Add(true, s)
	}
	f.Fuzz(func(t *testing.T, v1 bool, self string) {
		mnt, files := "sys/fs/cgroup", map[string]string{"proc/self/cgroup": self}
		decoy := "sys/fs/cgroupx"
		cpuOf, acctOf := func(ctrl string) bool { return ctrl == "" }, func(ctrl string) bool { return ctrl == "" }
		usage := map[string]time.Duration{"": time.Second, "a": 2 * time.Second, "a/b": 3 * time.Second, "c": 4 * time.Second}
		if v1 {
			mnt, decoy = "sys/fs/cgroup/cpu,cpuacct", "sys/fs/cgroup/cpux"
			cpuOf, acctOf = hasCtrl("cpu"), hasCtrl("cpuacct")
			for dir, used := range usage {
				files[path.Join(mnt, dir, "cpuacct.usage")] = itoa(int64(used)) + "\n"
				files[path.Join(mnt, dir, "cpu.cfs_quota_us")] = "-1\n"
				files[path.Join(mnt, dir, "cpu.cfs_period_us")] = "100000\n"
			}
			files[mnt+"/a/cpu.cfs_quota_us"] = "50000\n"
			files[decoy+"/cpuacct.usage"] = "9000000000\n"
			files[decoy+"/cpu.cfs_quota_us"] = "10000\n"
			files[decoy+"/cpu.cfs_period_us"] = "100000\n"
		} else {
			files[mnt+"/cgroup.controllers"] = "cpu\n"
			for dir, used := range usage {
				files[path.Join(mnt, dir, "cpu.stat")] = "usage_usec " + itoa(used.Microseconds()) + "\n"
			}
			files[mnt+"/a/cpu.max"] = "50000 100000\n"
			files[decoy+"/cpu.stat"] = "usage_usec 9000000\n"
			files[decoy+"/cpu.max"] = "10000 100000\n"
		}
		root := writeFiles(t, files)
		quotaDir := selfCgroup(self, cpuOf, usage)
		wantUsed, wantCores := usage[selfCgroup(self, acctOf, usage)], float64(runtime.NumCPU())
		if quotaDir == "a" || quotaDir == "a/b" {
			wantUsed, wantCores = 2*time.Second, 0.5
		}
		used, cores, err := (&aimd.CgroupCPU{Root: root}).Read()
		if err != nil || used != wantUsed || cores != wantCores {
			t.Fatalf("read %v, %v, %v; want %v, %v (cgroup %q)", used, cores, err, wantUsed, wantCores, self)
		}
	})
}

// selfCgroup returns the cgroup of the first line of self whose controller
// list matches, relative to the mount point, when the tree has it ("" for
// the mount point).
func selfCgroup(self string, match func(string) bool, tree map[string]time.Duration) string {
	for line := range strings.SplitSeq(self, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 || !match(parts[1]) {
			continue
		}
		// relative to the namespace's root; ".." leaves it
		dir := path.Clean(strings.TrimLeft(parts[2], "/"))
		if _, ok := tree[dir]; ok && dir != ".." && !strings.HasPrefix(dir, "../") {
			return dir
		}
		return ""
	}
	return ""
}

func hasCtrl(name string) func(string) bool {
	return func(ctrl string) bool {
		for c := range strings.SplitSeq(ctrl, ",") {
			if c == name {
				return true
			}
		}
		return false
	}
}
