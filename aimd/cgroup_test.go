package aimd_test

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return root
}

// readsNaNAcrossChange samples a CgroupCPU on the files under root, makes
// change to them, and checks that the period across it reads NaN (why, in
// what); then it writes the next period's usage with next, given the CPUs
// of the quota now in force, and checks that period reads 0.9.
func readsNaNAcrossChange(t *testing.T, root, what string, change func(write func(name, content string)), next func(write func(name, content string), cores float64)) {
	t.Helper()
	write := func(name, content string) {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(content), 0o644))
	}
	c := &aimd.CgroupCPU{Root: root}
	now := time.Unix(100, 0)
	_, err := c.Sample(now)
	require.NoError(t, err)

	change(write)
	_, cores, err := c.Read()
	require.NoError(t, err)
	v, err := c.Sample(now.Add(time.Second))
	require.NoError(t, err)
	assert.True(t, math.IsNaN(v), "a period across %s reads %v, want NaN", what, v)

	next(write, cores)
	v, err = c.Sample(now.Add(2 * time.Second))
	require.NoError(t, err)
	assert.InDelta(t, 0.9, v, 1e-9, "the period after %s", what)
}

func TestCgroupCPURead(t *testing.T) {
	tests := []struct {
		name      string
		files     map[string]string
		wantUsed  time.Duration
		wantCores float64
	}{
		{
			name: "v2 with quota in a nested cgroup",
			files: map[string]string{
				"proc/self/cgroup":                     "0::/kubepods/pod1\n",
				"sys/fs/cgroup/cgroup.controllers":     "cpu memory\n",
				"sys/fs/cgroup/kubepods/pod1/cpu.max":  "150000 100000\n",
				"sys/fs/cgroup/kubepods/pod1/cpu.stat": "usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n",
			},
			wantUsed: 2500 * time.Millisecond, wantCores: 1.5,
		},
		{
			name: "v2 namespaced: path hidden, mount point used",
			files: map[string]string{
				"proc/self/cgroup":                 "0::/hidden/from/us\n",
				"sys/fs/cgroup/cgroup.controllers": "cpu\n",
				"sys/fs/cgroup/cpu.max":            "50000 100000\n",
				"sys/fs/cgroup/cpu.stat":           "usage_usec 10\n",
			},
			wantUsed: 10 * time.Microsecond, wantCores: 0.5,
		},
		{
			name: "v1 split cpu and cpuacct hierarchies",
			files: map[string]string{
				"proc/self/cgroup":                           "4:memory:/x\n2:cpuacct:/\n1:cpu:/\n",
				"sys/fs/cgroup/cpuacct/cpuacct.usage":        "3000000000\n",
				"sys/fs/cgroup/cpu/cpu.cfs_quota_us":         "200000\n",
				"sys/fs/cgroup/cpu/cpu.cfs_period_us":        "100000\n",
				"sys/fs/cgroup/unified/cgroup.controllers":   "\n",
				"sys/fs/cgroup/cpu,cpuacct/unrelated-marker": "",
			},
			wantUsed: 3 * time.Second, wantCores: 2,
		},
		{
			name: "v1 joint hierarchy, nested path",
			files: map[string]string{
				"proc/self/cgroup": "3:cpu,cpuacct:/docker/abc\n",
				"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpuacct.usage":     "42\n",
				"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us":  "25000\n",
				"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n",
			},
			wantUsed: 42, wantCores: 0.25,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &aimd.CgroupCPU{Root: writeFiles(t, tt.files)}
			used, cores, err := c.Read()
			require.NoError(t, err)
			assert.Equal(t, tt.wantUsed, used)
			assert.InDelta(t, tt.wantCores, cores, 1e-9)
		})
	}
}

func TestCgroupCPUNoQuotaUsesEveryCPU(t *testing.T) {
	c := &aimd.CgroupCPU{Root: writeFiles(t, map[string]string{
		"proc/self/cgroup":                 "0::/\n",
		"sys/fs/cgroup/cgroup.controllers": "cpu\n",
		"sys/fs/cgroup/cpu.max":            "max 100000\n",
		"sys/fs/cgroup/cpu.stat":           "usage_usec 1\n",
	})}
	_, cores, err := c.Read()
	require.NoError(t, err)
	assert.Positive(t, cores)
}

func TestCgroupCPUSample(t *testing.T) {
	files := map[string]string{
		"proc/self/cgroup":                 "0::/\n",
		"sys/fs/cgroup/cgroup.controllers": "cpu\n",
		"sys/fs/cgroup/cpu.max":            "200000 100000\n",
		"sys/fs/cgroup/cpu.stat":           "usage_usec 1000000\n",
	}
	root := writeFiles(t, files)
	c := &aimd.CgroupCPU{Root: root}
	now := time.Unix(100, 0)
	v, err := c.Sample(now)
	require.NoError(t, err)
	assert.True(t, math.IsNaN(v), "first sample has no information")
	// 1.8 s of CPU in 1 s on a 2-CPU quota: 90%.
	require.NoError(t, os.WriteFile(filepath.Join(root, "sys/fs/cgroup/cpu.stat"), []byte("usage_usec 2800000\n"), 0o644))
	v, err = c.Sample(now.Add(time.Second))
	require.NoError(t, err)
	assert.InDelta(t, 0.9, v, 1e-9)
}

func TestCgroupCPUMissing(t *testing.T) {
	c := &aimd.CgroupCPU{Root: t.TempDir()}
	_, err := c.Sample(time.Now())
	require.Error(t, err)
	_, _, err = c.Read()
	require.ErrorContains(t, err, "aimd:")
}

// TestLiveSignals reads the real process and cgroup CPU of this machine: the
// values must be sane utilizations after some work.
func TestLiveSignals(t *testing.T) {
	var p aimd.ProcessCPU
	start := time.Now()
	_, err := p.Sample(start)
	require.NoError(t, err)
	x := 0.0
	for time.Since(start) < 20*time.Millisecond { // burn a little CPU, bounded
		x += math.Sqrt(x + 1)
	}
	v, err := p.Sample(time.Now())
	require.NoError(t, err)
	assert.Greater(t, v, 0.0)
	assert.Less(t, v, 1.5)
	var c aimd.CgroupCPU
	if _, _, err := c.Read(); err != nil {
		t.Logf("no cgroup CPU accounting here: %v", err)
		return
	}
	_, err = c.Sample(start)
	require.NoError(t, err)
	v, err = c.Sample(time.Now())
	require.NoError(t, err)
	assert.GreaterOrEqual(t, v, 0.0)
}

func TestLatencySignal(t *testing.T) {
	var l aimd.Latency
	v, err := l.Sample(time.Time{})
	require.NoError(t, err)
	assert.True(t, math.IsNaN(v))
	l.Observe(10 * time.Millisecond)
	l.Observe(30 * time.Millisecond)
	v, _ = l.Sample(time.Time{})
	assert.InDelta(t, 0.020, v, 1e-12)
	v, _ = l.Sample(time.Time{})
	assert.True(t, math.IsNaN(v), "the window resets")
}

// TestProcessCPUCores: with a budget of Cores, the same CPU reads
// GOMAXPROCS/Cores times higher than against GOMAXPROCS.
func TestProcessCPUCores(t *testing.T) {
	all, half := aimd.ProcessCPU{}, aimd.ProcessCPU{Cores: 0.5}
	start := time.Now()
	_, err := all.Sample(start)
	require.NoError(t, err)
	_, err = half.Sample(start)
	require.NoError(t, err)
	x := 0.0
	for time.Since(start) < 20*time.Millisecond { // burn a little CPU, bounded
		x += math.Sqrt(x + 1)
	}
	now := time.Now()
	a, err := all.Sample(now)
	require.NoError(t, err)
	h, err := half.Sample(now)
	require.NoError(t, err)
	require.Positive(t, a)
	assert.InEpsilon(t, float64(runtime.GOMAXPROCS(0))/0.5, h/a, 0.2, "x %v", x)
}
