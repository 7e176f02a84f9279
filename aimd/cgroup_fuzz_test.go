package aimd_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tierkit/tierkit/aimd"
)

// FuzzCgroupRead reads arbitrary cgroup files: cgroup v2 (a cgroup "a" with a
// cpu.max and cpu.stat, under a mount point with a cpu.max of its own) and
// cgroup v1 (cpu.cfs_quota_us, cpu.cfs_period_us and cpuacct.usage). Nothing
// panics; an error names the package and wraps ErrCgroup; a reading has a usage of at least 0 and a
// finite quota above 0. When every file is in the form the kernel writes, the
// reading is exact: Read gives the smallest quota on the way up (every CPU of
// the machine without one) and the usage of the cgroup whose quota that is;
// and after the cgroup uses own and its siblings other microseconds of CPU
// in a second, Sample gives the highest usage over quota of the cgroups with
// a quota.
func FuzzCgroupRead(f *testing.F) {
	f.Add(uint8(0), "50000 100000\n", "max 100000\n", "usage_usec 2500000\nuser_usec 1\n", uint32(100_000), uint32(850_000))
	f.Add(uint8(0), "max 100000\n", "20000 100000\n", "usage_usec 1\n", uint32(1), uint32(2))
	f.Add(uint8(0), "50000 100000\n", "100000 100000\n", "usage_usec 7\n", uint32(100_000), uint32(850_000))
	f.Add(uint8(0), "200000 100000\n", "100000 100000\n", "usage_usec 9223372036854776\n", uint32(0), uint32(0))
	f.Add(uint8(0), "max\n", "1 2 3\n", "usage_usec -1\n", uint32(0), uint32(0))
	f.Add(uint8(0), "0 100000\n", "max 0\n", "user_usec 5\n", uint32(0), uint32(0))
	f.Add(uint8(1), "50000\n", "100000\n", "42\n", uint32(400_000), uint32(0))
	f.Add(uint8(1), "-1\n", "100000\n", "42\n", uint32(3), uint32(0))
	f.Add(uint8(1), "0\n", "0\n", "-5\n", uint32(0), uint32(0))
	f.Add(uint8(1), "9223372036854775807\n", "1\n", " 7 \n", uint32(0), uint32(0))
	f.Fuzz(func(t *testing.T, mode uint8, quota, parentOrPeriod, usage string, own, other uint32) {
		v1 := mode&1 != 0
		var files map[string]string
		if v1 {
			const dir = "sys/fs/cgroup/cpu,cpuacct/a/"
			files = map[string]string{"proc/self/cgroup": "3:cpu,cpuacct:/a\n",
				dir + "cpu.cfs_quota_us": quota, dir + "cpu.cfs_period_us": parentOrPeriod,
				dir + "cpuacct.usage": usage}
		} else {
			files = map[string]string{"proc/self/cgroup": "0::/a\n",
				"sys/fs/cgroup/cgroup.controllers": "cpu\n",
				"sys/fs/cgroup/cpu.max":            parentOrPeriod,
				"sys/fs/cgroup/cpu.stat":           "usage_usec 5000000\n", // 5 s: tells the parent's usage apart
				"sys/fs/cgroup/a/cpu.max":          quota, "sys/fs/cgroup/a/cpu.stat": usage}
		}
		root := writeFiles(t, files)
		c := &aimd.CgroupCPU{Root: root}
		used, cores, err := c.Read()
		if err != nil {
			if !strings.HasPrefix(err.Error(), "aimd: ") || !errors.Is(err, aimd.ErrCgroup) {
				t.Fatalf("error %q does not name the package or wrap ErrCgroup", err)
			}
		} else if used < 0 || !(cores > 0) || math.IsInf(cores, 0) {
			t.Fatalf("used %v, cores %v", used, cores)
		}

		var want cgroupReading
		if v1 {
			want = wantV1(quota, parentOrPeriod, usage)
		} else {
			want = wantV2(quota, parentOrPeriod, usage)
		}
		switch {
		case !want.known:
			return
		case want.err && err == nil:
			t.Fatalf("read used %v, cores %v from malformed files %q", used, cores, files)
		case !want.err && err != nil:
			t.Fatalf("error %v from well-formed files %q", err, files)
		case want.err:
			return
		}
		w := want.tightest()
		if used != w.used || cores != w.cores {
			t.Fatalf("read used %v, cores %v; want %v, %v (files %q)", used, cores, w.used, w.cores, files)
		}
		checkSample(t, root, want, time.Duration(own)*time.Microsecond, time.Duration(other)*time.Microsecond)
	})
}

// checkSample samples the cgroup of want under root, lets its levels use
// own (the parent own+other) in a second, and checks the second sample
// against the highest usage over quota.
func checkSample(t *testing.T, root string, want cgroupReading, own, other time.Duration) {
	load := 0.0
	for i, l := range want.levels {
		d := own
		if i > 0 { // the parent: the process's cgroup and its siblings
			d += other
		}
		if l.used > math.MaxInt64-d {
			return
		}
		want.levels[i].used += d
		load = max(load, d.Seconds()/l.cores)
	}
	c := &aimd.CgroupCPU{Root: root}
	now := time.Unix(100, 0)
	if v, err := c.Sample(now); err != nil || !math.IsNaN(v) {
		t.Fatalf("first sample %v, %v; want NaN", v, err)
	}
	for _, l := range want.levels {
		name, content := "sys/fs/cgroup/cpu,cpuacct/a/cpuacct.usage", itoa(int64(l.used))+"\n"
		if l.stat != "" {
			name, content = l.stat, "usage_usec "+itoa(int64(l.used/time.Microsecond))+"\n"
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, err := c.Sample(now.Add(time.Second))
	if err != nil || math.Abs(v-load) > 1e-9*max(1, load) {
		t.Fatalf("sample %v, %v; want %v (levels %+v)", v, err, load, want.levels)
	}
}

// cgroupReading is what a read of files in the kernel's form gives: an error,
// or the levels with a quota from the process's cgroup up (the process's
// cgroup against every CPU without one). known is false for files of another
// form, on which the fuzz target checks only the properties every read has.
type cgroupReading struct {
	known, err bool
	levels     []cgroupLevel
}

type cgroupLevel struct {
	stat  string // v2: its cpu.stat
	used  time.Duration
	cores float64
}

// tightest is the level of the smallest quota, of equal ones the highest.
func (r cgroupReading) tightest() cgroupLevel {
	w := r.levels[0]
	for _, l := range r.levels[1:] {
		if l.cores <= w.cores {
			w = l
		}
	}
	return w
}

var (
	cpuMaxForm = regexp.MustCompile(`^(max|[0-9]{1,18}) ([0-9]{1,18})\n$`)
	usecForm   = regexp.MustCompile(`^usage_usec ([0-9]{1,19})\n`)
	intForm    = regexp.MustCompile(`^-?[0-9]{1,18}\n$`)
)

// wantV2 reads a leaf cpu.max, its parent's (whose cpu.stat has 5 s of usage)
// and the leaf's cpu.stat.
func wantV2(leafMax, parentMax, stat string) cgroupReading {
	type q struct {
		cores      float64
		quota, bad bool
	}
	parse := func(s string) (q, bool) {
		if len(strings.Fields(s)) != 2 {
			return q{bad: true}, true
		}
		m := cpuMaxForm.FindStringSubmatch(s)
		if m == nil {
			return q{}, false
		}
		p, _ := strconv.ParseInt(m[2], 10, 64)
		if p == 0 {
			return q{bad: true}, true
		}
		if m[1] == "max" {
			return q{}, true
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		if n == 0 {
			return q{bad: true}, true
		}
		return q{cores: float64(n) / float64(p), quota: true}, true
	}
	leaf, ok1 := parse(leafMax)
	parent, ok2 := parse(parentMax)
	if (ok1 && leaf.bad) || (ok2 && parent.bad) {
		return cgroupReading{known: true, err: true}
	}
	if !ok1 || !ok2 {
		return cgroupReading{}
	}
	var levels []cgroupLevel
	if leaf.quota || !parent.quota { // the leaf's usage is read
		m := usecForm.FindStringSubmatch(stat)
		if m == nil {
			return cgroupReading{}
		}
		usec, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil || usec > math.MaxInt64/int64(time.Microsecond) {
			return cgroupReading{known: true, err: true}
		}
		cores := float64(runtime.NumCPU())
		if leaf.quota {
			cores = leaf.cores
		}
		levels = append(levels, cgroupLevel{stat: "sys/fs/cgroup/a/cpu.stat", used: time.Duration(usec) * time.Microsecond, cores: cores})
	}
	if parent.quota {
		levels = append(levels, cgroupLevel{stat: "sys/fs/cgroup/cpu.stat", used: 5 * time.Second, cores: parent.cores})
	}
	return cgroupReading{known: true, levels: levels}
}

// wantV1 reads a cgroup's CFS quota and period and its cpuacct.usage.
func wantV1(quota, period, usage string) cgroupReading {
	if !intForm.MatchString(quota) || !intForm.MatchString(period) || !intForm.MatchString(usage) {
		return cgroupReading{}
	}
	q, _ := strconv.ParseInt(strings.TrimSpace(quota), 10, 64)
	p, _ := strconv.ParseInt(strings.TrimSpace(period), 10, 64)
	u, _ := strconv.ParseInt(strings.TrimSpace(usage), 10, 64)
	if q == 0 || q < -1 || p <= 0 || u < 0 {
		return cgroupReading{known: true, err: true}
	}
	cores := float64(runtime.NumCPU())
	if q > 0 {
		cores = float64(q) / float64(p)
	}
	return cgroupReading{known: true, levels: []cgroupLevel{{used: time.Duration(u), cores: cores}}}
}
