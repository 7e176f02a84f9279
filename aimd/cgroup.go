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
// read correctly inside a container: utilization = CPU time used by the cgroup /
// (wall time x quota in CPUs). With cgroup v2 it reads cpu.max (quota and period)
// and cpu.stat usage_usec; with cgroup v1 it reads cpu.cfs_quota_us,
// cpu.cfs_period_us and cpuacct.usage. The kernel enforces the quota of every
// ancestor too, so the quota is the smallest on the way up to the mount point,
// and the usage is that of the cgroup whose quota it is (its siblings share
// it; of equal quotas, the highest cgroup's, whose usage counts the others'). Without a quota the cgroup may use every CPU of the machine
// (runtime.NumCPU). A quota above the CPUs the cgroup can
// run on (its cpuset, or the machine) is used as it is, so the reading stays
// below 1 even when those CPUs are saturated; use [ProcessCPU] with
// [ProcessCPU.Cores] there (a nil [Config.Signal] then makes a ProcessCPU). The cgroup directory is found from
// /proc/self/cgroup under the mount point; a path that does not exist there (a
// cgroup namespace hides it) falls back to the mount point itself.
//
// The zero value reads the live system; it is safe for concurrent use. As with
// [ProcessCPU], pass Sample the time of the call itself.
type CgroupCPU struct {
	// Root is prefixed to every path read (for tests: a directory holding
	// proc/self/cgroup and sys/fs/cgroup/...). Empty means "/".
	Root string

	mu        sync.Mutex
	lastUsed  time.Duration
	lastWall  time.Time
	lastCores float64
	lastDir   string // the cgroup the usage was read from
}

// Sample returns the cgroup's utilization of its quota since the previous call,
// NaN on the first call, when the usage counter went backwards (the cgroup
// was recreated, as when its container restarts) and when the quota changed
// since the previous call (the container was resized): when in the period
// the quota changed is unknown, so is the capacity the usage is measured
// against, and neither quota alone gives a true reading (against the new one,
// a cut reads above 1 and a raise reads low). The next period is measured
// against the new quota. So is a period across a change of the cgroup the
// usage is read from (another one's quota binds now, or the process moved):
// the two readings are of different counters.
func (c *CgroupCPU) Sample(now time.Time) (float64, error) {
	used, cores, dir, err := c.read()
	if err != nil {
		return math.NaN(), err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	prevUsed, prevWall, prevCores, prevDir := c.lastUsed, c.lastWall, c.lastCores, c.lastDir
	c.lastUsed, c.lastWall, c.lastCores, c.lastDir = used, now, cores, dir
	// prevCores is 0 before the first sample (a quota is positive): a
	// prevWall at the zero time is a sample on an explicit clock that
	// starts there, not a first one
	if cores != prevCores || dir != prevDir {
		return math.NaN(), nil
	}
	return utilization(used-prevUsed, now.Sub(prevWall), cores), nil
}

// Read returns the cgroup's cumulative CPU usage and its quota in CPUs
// (runtime.NumCPU when there is no quota: no cpu.max file, a quota of "max" or
// of -1 in v1). A file that cannot be read or holds what the kernel never
// writes (a period of 0, a quota of 0) is an error, not "no quota".
func (c *CgroupCPU) Read() (used time.Duration, cores float64, err error) {
	used, cores, _, err = c.read()
	return used, cores, err
}

// read is Read that also returns the cgroup directory the usage was read from.
func (c *CgroupCPU) read() (used time.Duration, cores float64, dir string, err error) {
	root := c.Root
	if root == "" {
		root = "/"
	}
	mnt := filepath.Join(root, "sys/fs/cgroup")
	if _, err := os.Stat(filepath.Join(mnt, "cgroup.controllers")); err == nil {
		return readV2(root, mnt)
	}
	return readV1(root, mnt)
}

func readV2(root, mnt string) (time.Duration, float64, string, error) {
	leaf := cgroupDir(root, mnt, func(ctrl string) bool { return ctrl == "" })
	// The kernel enforces the quota of every ancestor too: the one that binds
	// is the smallest on the way up to the mount point, and its usage, which
	// counts the siblings that share it, is what it is measured against. Of
	// equal quotas the highest binds: its usage is at least its descendants'.
	cores, dir, quota := float64(runtime.NumCPU()), leaf, false
	for _, d := range upTo(leaf, mnt) {
		c, ok, err := quotaV2(d)
		if err != nil {
			return 0, 0, "", err
		}
		if ok && (!quota || c <= cores) {
			cores, dir, quota = c, d, true
		}
	}
	stat, err := os.ReadFile(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return 0, 0, "", fmt.Errorf("aimd: cgroup v2: %w", err)
	}
	usec, err := field(stat, "usage_usec")
	if err != nil {
		return 0, 0, "", err
	}
	if usec < 0 || usec > math.MaxInt64/int64(time.Microsecond) {
		return 0, 0, "", fmt.Errorf("aimd: cgroup v2 cpu.stat usage_usec %d out of range", usec)
	}
	return time.Duration(usec) * time.Microsecond, cores, dir, nil
}

// quotaV2 reads dir's cpu.max: its quota in CPUs, and false for none (no
// file, as in the root cgroup, or a quota of "max").
func quotaV2(dir string) (float64, bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cpu.max"))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return 0, false, nil
	case err != nil:
		return 0, false, fmt.Errorf("aimd: cgroup v2: %w", err)
	}
	// "$MAX $PERIOD", where $MAX is "max" for no quota; the kernel writes
	// a period of at least 1000 either way
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0, false, fmt.Errorf("aimd: cgroup v2 cpu.max %q malformed", b)
	}
	p, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || p <= 0 {
		return 0, false, fmt.Errorf("aimd: cgroup v2 cpu.max %q malformed", b)
	}
	if f[0] == "max" {
		return 0, false, nil
	}
	q, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || q <= 0 {
		return 0, false, fmt.Errorf("aimd: cgroup v2 cpu.max %q malformed", b)
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

func readV1(root, mnt string) (time.Duration, float64, string, error) {
	// The quota that binds is the smallest on the way up to the cpu
	// hierarchy's mount point (see readV2); rel is its cgroup's path, whose
	// usage is read in the cpuacct hierarchy when it has that cgroup.
	cores, rel, quota := float64(runtime.NumCPU()), "", false
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
				return 0, 0, "", err
			}
			seen = true
			if ok && (!quota || c <= cores) { // the highest of equal quotas, as in readV2
				r, _ := filepath.Rel(cpuMnt, dir)
				cores, rel, quota = c, r, true
			}
		}
		if seen {
			break
		}
	}
	for _, d := range []string{"cpuacct", "cpu,cpuacct", "cpuacct,cpu"} {
		acctMnt := filepath.Join(mnt, d)
		dir := cgroupDir(root, acctMnt, hasController("cpuacct"))
		if quota {
			if bound := filepath.Join(acctMnt, rel); isDir(bound) {
				dir = bound
			}
		}
		b, err := os.ReadFile(filepath.Join(dir, "cpuacct.usage"))
		if err != nil {
			continue
		}
		ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err == nil && ns < 0 {
			err = errors.New("negative")
		}
		if err != nil {
			return 0, 0, "", fmt.Errorf("aimd: cgroup v1 cpuacct.usage: %w", err)
		}
		return time.Duration(ns), cores, dir, nil
	}
	return 0, 0, "", errors.New("aimd: no cgroup v2 cpu.stat or v1 cpuacct.usage found")
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
		return 0, false, fmt.Errorf("aimd: cgroup v1 CFS quota: %w", err)
	}
	// -1 is no quota; the kernel writes no other value below 1000, nor a
	// period below 1000
	if q == 0 || q < -1 || p <= 0 {
		return 0, false, fmt.Errorf("aimd: cgroup v1 CFS quota %d over period %d malformed", q, p)
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
// whose controller list matches, or mnt if that directory does not exist or is
// not under mnt.
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
		// (cgroup_namespaces(7)): joined, it can leave the mount point.
		dir := filepath.Join(mnt, parts[2])
		if !strings.HasPrefix(dir, mnt+string(filepath.Separator)) {
			return mnt
		}
		if _, err := os.Stat(dir); err == nil {
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
				return 0, fmt.Errorf("aimd: cgroup cpu.stat %s: %w", name, err)
			}
			return v, nil
		}
	}
	return 0, fmt.Errorf("aimd: cgroup cpu.stat has no %s", name)
}

func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}
