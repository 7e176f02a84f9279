package aimd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CgroupCPU is the CPU utilization of this process's cgroup against its CPU quota,
// read correctly inside a container: utilization = CPU time used by a cgroup /
// (wall time x its quota in CPUs). With cgroup v2 it reads cpu.max (quota and
// period) and cpu.stat usage_usec; with cgroup v1 it reads cpu.cfs_quota_us,
// cpu.cfs_period_us and cpuacct.usage. The kernel enforces the quota of every
// ancestor too, and throttles the process when any of them has used its own,
// so the reading is the highest over every cgroup with a quota on the way up
// to the mount point of its usage over its quota: a parent with a larger
// quota that its other children nearly use up binds before the process's
// own smaller one (its usage counts the siblings that share it). Without a
// quota anywhere the process's cgroup may use every CPU of the machine
// (runtime.NumCPU). A quota above the CPUs the cgroup can
// run on (its cpuset, or the machine) is used as it is, so the reading stays
// below 1 even when those CPUs are saturated; use [ProcessCPU] with
// [ProcessCPU.Cores] there (a nil [Config.Signal] then makes a ProcessCPU). The cgroup directory is found from
// /proc/self/cgroup under the mount point; a path that does not exist there
// (a v1 container runtime without a cgroup namespace mounts the container's
// own cgroup there) falls back to the mount point itself.
//
// NOTE: the mount point is taken to be /sys/fs/cgroup (with cgroup v1, its
// cpu and cpuacct hierarchies under it, named cpu, cpuacct, cpu,cpuacct or
// cpuacct,cpu); /proc/self/mountinfo is not read. A hierarchy mounted
// elsewhere is not found: the reading fails with [ErrCgroup] (the default
// signal is then a ProcessCPU), or, when only v1's cpu hierarchy is
// elsewhere, it reads the usage against every CPU, missing the quota.
//
// The zero value reads the live system; it is safe for concurrent use. As with
// [ProcessCPU], pass Sample the time of the call itself.
type CgroupCPU struct {
	// Root is prefixed to every path read (for tests: a directory holding
	// proc/self/cgroup and sys/fs/cgroup/...). Empty means "/".
	Root string

	mu       sync.Mutex // protects the fields below
	last     []cgLevel  // the levels read by the previous sample
	spare    []cgLevel  // the slice before last, reused by the next read
	lastWall time.Time
	sampled  bool // last holds a sample: an explicit clock may start at the zero time
}

// cgLevel is a cgroup whose quota the kernel enforces on the process (or,
// without a quota anywhere, the process's own cgroup against every CPU).
type cgLevel struct {
	dir   string        // the cgroup its usage is read from
	rel   string        // v1: its path in the cpu hierarchy ("" for no quota)
	cores float64       // its quota in CPUs
	used  time.Duration // its cumulative usage
}

// Sample returns the cgroup's utilization of its quota since the previous call:
// the highest, over the cgroups with a quota on the way up, of usage over
// quota (see [CgroupCPU]). It is NaN on the first call, when a usage counter
// went backwards (the cgroup was recreated, as when its container restarts)
// and when a quota changed since the previous call (the container was
// resized): when in the period the quota changed is unknown, so is the
// capacity the usage is measured against, and neither quota alone gives a
// true reading (against the new one, a cut reads above 1 and a raise reads
// low). The next period is measured against the new quota. So is a period
// across a change of the cgroups with a quota (one's quota was set or
// removed, or the process moved): the readings are of different counters.
//
// A call whose now is before the previous call's (it took its time, then
// lost the race for the lock to a newer sample) reads NaN and leaves the
// newer reading in place: stored last, its older time would be paired with
// the newer usage and skew the next period. So does a call at the same time
// as the previous one: it covers no time, and its reading would drop the
// usage since the previous one from the next period.
func (c *CgroupCPU) Sample(now time.Time) (float64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sampled && !now.After(c.lastWall) {
		return math.NaN(), nil
	}
	// Read under the lock: overlapping samples store their readings in the
	// order they were taken. The slice of the sample before last is reused.
	levels, err := c.read(c.spare[:0])
	if err != nil {
		return math.NaN(), err
	}
	prev, wall, first := c.last, now.Sub(c.lastWall), !c.sampled
	c.last, c.spare, c.lastWall, c.sampled = levels, prev, now, true
	if first || !sameLevels(prev, levels) {
		return math.NaN(), nil
	}
	load := 0.0
	for i := range levels {
		u := utilization(levels[i].used-prev[i].used, wall, levels[i].cores)
		if math.IsNaN(u) { // a counter reset: the period's load is unknown
			return math.NaN(), nil
		}
		load = max(load, u)
	}
	return load, nil
}

// sameLevels reports whether a and b are the same cgroups with the same quotas.
func sameLevels(a, b []cgLevel) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].dir != b[i].dir || a[i].cores != b[i].cores {
			return false
		}
	}
	return true
}

// Read returns the cumulative CPU usage and the quota in CPUs of the cgroup
// with the smallest quota on the way up (of equal quotas, the highest
// cgroup's: its usage counts the others'), or of the process's cgroup and
// runtime.NumCPU when there is no quota (no cpu.max file, a quota of "max" or
// of -1 in v1). Sample reads every cgroup with a quota, as a larger one can
// bind when its other children use it. A file that cannot be read or holds
// what the kernel never writes (a period of 0, a quota of 0) is an error
// wrapping [ErrCgroup], not "no quota"; so is every error of Sample.
func (c *CgroupCPU) Read() (used time.Duration, cores float64, err error) {
	levels, err := c.read(nil)
	if err != nil {
		return 0, 0, err
	}
	min := levels[0]
	for _, l := range levels[1:] { // from the process's cgroup up
		if l.cores <= min.cores {
			min = l
		}
	}
	return min.used, min.cores, nil
}

// read appends to buf the levels whose quota the kernel enforces on the
// process, from its own cgroup up, with their usage: at least one.
func (c *CgroupCPU) read(buf []cgLevel) ([]cgLevel, error) {
	root := c.Root
	if root == "" {
		root = "/"
	}
	mnt := filepath.Join(root, "sys/fs/cgroup")
	if _, err := os.Stat(filepath.Join(mnt, "cgroup.controllers")); err == nil {
		return readV2(root, mnt, buf)
	}
	return readV1(root, mnt, buf)
}

func readV2(root, mnt string, buf []cgLevel) ([]cgLevel, error) {
	leaf := cgroupDir(root, mnt, func(ctrl string) bool { return ctrl == "" })
	for _, d := range upTo(leaf, mnt) {
		c, ok, err := quotaV2(d)
		if err != nil {
			return nil, err
		}
		if ok {
			buf = append(buf, cgLevel{dir: d, cores: c})
		}
	}
	if len(buf) == 0 {
		buf = append(buf, cgLevel{dir: leaf, cores: float64(runtime.NumCPU())})
	}
	for i := range buf {
		used, err := usageV2(buf[i].dir)
		if err != nil {
			return nil, err
		}
		buf[i].used = used
	}
	return buf, nil
}

// usageV2 reads dir's cpu.stat usage_usec.
func usageV2(dir string) (time.Duration, error) {
	stat, err := os.ReadFile(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return 0, cgroupErr("cgroup v2: %w", err)
	}
	usec, err := field(stat, "usage_usec")
	if err != nil {
		return 0, err
	}
	if usec < 0 || usec > math.MaxInt64/int64(time.Microsecond) {
		return 0, cgroupErr("cgroup v2 cpu.stat usage_usec %d out of range", usec)
	}
	return time.Duration(usec) * time.Microsecond, nil
}

// quotaV2 reads dir's cpu.max: its quota in CPUs, and false for none (no
// file, as in the root cgroup, or a quota of "max").
func quotaV2(dir string) (float64, bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cpu.max"))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return 0, false, nil
	case err != nil:
		return 0, false, cgroupErr("cgroup v2: %w", err)
	}
	// "$MAX $PERIOD", where $MAX is "max" for no quota; the kernel writes
	// a period of at least 1000 either way
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0, false, cgroupErr("cgroup v2 cpu.max %q malformed", b)
	}
	p, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || p <= 0 {
		return 0, false, cgroupErr("cgroup v2 cpu.max %q malformed", b)
	}
	if f[0] == "max" {
		return 0, false, nil
	}
	q, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || q <= 0 {
		return 0, false, cgroupErr("cgroup v2 cpu.max %q malformed", b)
	}
	return float64(q) / float64(p), true, nil
}

// upTo returns dir and its parents up to mnt, included, or dir alone when it
// is not under mnt.
func upTo(dir, mnt string) []string {
	dirs := []string{dir}
	for d := dir; d != mnt; {
		p := filepath.Dir(d)
		if p == d || !strings.HasPrefix(p, mnt) {
			return dirs[:1]
		}
		d = p
		dirs = append(dirs, d)
	}
	return dirs
}

func readV1(root, mnt string, buf []cgLevel) ([]cgLevel, error) {
	// The levels with a quota on the way up to the cpu hierarchy's mount
	// point (see readV2), by their path there, where the cpuacct hierarchy
	// reads their usage when it has that cgroup.
	for _, d := range []string{"cpu", "cpu,cpuacct", "cpuacct,cpu"} {
		cpuMnt := filepath.Join(mnt, d)
		leaf := cgroupDir(root, cpuMnt, hasController("cpu"))
		seen := false
		for _, dir := range upTo(leaf, cpuMnt) {
			c, ok, err := quotaV1(dir)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			seen = true
			if ok {
				r, _ := filepath.Rel(cpuMnt, dir)
				buf = append(buf, cgLevel{rel: r, cores: c})
			}
		}
		if seen {
			break
		}
	}
	if len(buf) == 0 {
		buf = append(buf, cgLevel{cores: float64(runtime.NumCPU())})
	}
	for _, d := range []string{"cpuacct", "cpu,cpuacct", "cpuacct,cpu"} {
		acctMnt := filepath.Join(mnt, d)
		ok, err := usagesV1(acctMnt, cgroupDir(root, acctMnt, hasController("cpuacct")), buf)
		if err != nil {
			return nil, err
		}
		if ok {
			return buf, nil
		}
	}
	return nil, cgroupErr("cgroup: no v2 cpu.stat or v1 cpuacct.usage found")
}

// usagesV1 reads the cpuacct.usage under acctMnt of each level: of its own
// cgroup there, or of the process's (own) when the hierarchy has no such
// cgroup. It returns false when a file is missing there (the hierarchy is
// mounted under another name), and an error when one is there but cannot
// be read: "not found" would send the caller looking for a mount, not for
// the permission or the file to fix.
func usagesV1(acctMnt, own string, levels []cgLevel) (bool, error) {
	for i := range levels {
		dir := own
		if levels[i].rel != "" {
			if bound := filepath.Join(acctMnt, levels[i].rel); isDir(bound) {
				dir = bound
			}
		}
		b, err := os.ReadFile(filepath.Join(dir, "cpuacct.usage"))
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, cgroupErr("cgroup v1: %w", err)
		}
		ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err == nil && ns < 0 {
			err = errors.New("negative")
		}
		if err != nil {
			return false, cgroupErr("cgroup v1 cpuacct.usage: %w", err)
		}
		levels[i].dir, levels[i].used = dir, time.Duration(ns)
	}
	return true, nil
}

// quotaV1 reads dir's CFS quota and period: the quota in CPUs, and false for
// none (-1). A missing file is os.ErrNotExist.
func quotaV1(dir string) (float64, bool, error) {
	q, err1 := readInt(filepath.Join(dir, "cpu.cfs_quota_us"))
	p, err2 := readInt(filepath.Join(dir, "cpu.cfs_period_us"))
	if errors.Is(err1, os.ErrNotExist) || errors.Is(err2, os.ErrNotExist) {
		return 0, false, os.ErrNotExist
	}
	if err := errors.Join(err1, err2); err != nil {
		return 0, false, cgroupErr("cgroup v1 CFS quota: %w", err)
	}
	// -1 is no quota; the kernel writes no other value below 1000, nor a
	// period below 1000
	if q == 0 || q < -1 || p <= 0 {
		return 0, false, cgroupErr("cgroup v1 CFS quota %d over period %d malformed", q, p)
	}
	if q < 0 {
		return 0, false, nil
	}
	return float64(q) / float64(p), true, nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// cgroupDir returns mnt joined with this process's cgroup path for the hierarchy
// whose controller list matches, or mnt if that path names no directory under
// mnt.
func cgroupDir(root, mnt string, match func(ctrl string) bool) string {
	b, err := os.ReadFile(filepath.Join(root, "proc/self/cgroup"))
	if err != nil {
		return mnt
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 || !match(parts[1]) {
			continue
		}
		// A cgroup outside the namespace's root reads with ".." components
		// (cgroup_namespaces(7)). Cleaned on its own, such a path starts
		// with "..": joined to the mount point first, it could leave it, or
		// come back in by the mount point's name ("/../cgroup/a") and name
		// the namespace's own cgroup a.
		rel := filepath.Clean(strings.TrimLeft(parts[2], "/"))
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return mnt
		}
		// A file is no cgroup: its quota and usage files are not there
		// (ENOTDIR, not ENOENT), and the read would fail.
		if dir := filepath.Join(mnt, rel); isDir(dir) {
			return dir
		}
		return mnt
	}
	return mnt
}

func hasController(name string) func(string) bool {
	return func(ctrl string) bool {
		for c := range strings.SplitSeq(ctrl, ",") {
			if c == name {
				return true
			}
		}
		return false
	}
}

func field(b []byte, name string) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == name {
			v, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return 0, cgroupErr("cgroup cpu.stat %s: %w", name, err)
			}
			return v, nil
		}
	}
	return 0, cgroupErr("cgroup cpu.stat has no %s", name)
}

// cgroupErr is fmt.Errorf of "aimd: "+format, wrapping ErrCgroup too.
func cgroupErr(format string, args ...any) error {
	return fmt.Errorf("aimd: "+format+": %w", append(args, ErrCgroup)...)
}

func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}
