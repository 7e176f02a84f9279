package aimd_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestCPUSignalsOnClockFromZeroTime: on an explicit clock that starts at the
// zero time.Time (a simulation, as the Limiter's schedule and bucket allow),
// only the first sample of a CPU signal is NaN. A previous sample at the zero
// time was taken for none, so the second period read NaN as well and the loop
// skipped a step.
func TestCPUSignalsOnClockFromZeroTime(t *testing.T) {
	const stat = "sys/fs/cgroup/cpu.stat"
	root := writeFiles(t, map[string]string{
		"proc/self/cgroup":                 "0::/\n",
		"sys/fs/cgroup/cgroup.controllers": "cpu\n",
		"sys/fs/cgroup/cpu.max":            "100000 100000\n",
		stat:                               "usage_usec 0\n",
	})
	c := &aimd.CgroupCPU{Root: root}
	var zero time.Time
	v, err := c.Sample(zero)
	require.NoError(t, err)
	assert.True(t, math.IsNaN(v), "the first sample reads %v, want NaN", v)
	require.NoError(t, os.WriteFile(filepath.Join(root, stat), []byte("usage_usec 900000\n"), 0o644))
	v, err = c.Sample(zero.Add(time.Second))
	require.NoError(t, err)
	assert.InDelta(t, 0.9, v, 1e-9, "CgroupCPU: the period after a sample at the zero time")

	var p aimd.ProcessCPU
	_, err = p.Sample(zero)
	require.NoError(t, err)
	v, err = p.Sample(zero.Add(time.Second))
	require.NoError(t, err)
	assert.False(t, math.IsNaN(v), "ProcessCPU: the period after a sample at the zero time reads NaN")
}
