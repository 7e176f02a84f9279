package aimd_test

import (
	"math"
	"testing"
	"time"

	"github.com/tierkit/tierkit/aimd"
)

// Found in a review: runtime configuration changes that left the loop parked
// or the bucket empty, non-finite parameters taken silently, and cgroup
// files whose malformed content gave a wrong value instead of an error.

// TestManualOffResumesSteps: Manual can be turned off with SetConfig;
// the Limiter must then step lazily again.
func TestManualOffResumesSteps(t *testing.T) {
	sig := aimd.SignalFunc(func(time.Time) (float64, error) { return 2, nil }) // overloaded
	cfg := aimd.Config{Signal: sig, Manual: true, Initial: 100, Max: 100, Period: time.Millisecond, MemoryLimit: -1}
	l, err := aimd.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if d, err := l.TryAcquireAt(now); err == nil { // a lazy check while Manual
		d(true)
	}
	cfg.Manual = false
	if err := l.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 10; i++ {
		if d, err := l.TryAcquireAt(now.Add(time.Duration(i) * 10 * time.Millisecond)); err == nil {
			d(true)
		}
	}
	if st := l.Stats(); st.Steps == 0 {
		t.Fatalf("after Manual was turned off, 10 admissions 10 periods apart took %d steps (limit %d)", st.Steps, st.Limit)
	}
}

// TestRateEnabledAtRuntime: enabling the token bucket with SetConfig
// must start it at MaxRate ("starting at MaxRate"), not at 0.
func TestRateEnabledAtRuntime(t *testing.T) {
	sig := aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })
	cfg := aimd.Config{Signal: sig, Manual: true, MemoryLimit: -1}
	l, err := aimd.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxRate = 1000
	if err := l.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	admitted := 0
	for i := range 50 {
		if d, err := l.TryAcquireAt(now.Add(time.Duration(i) * time.Millisecond)); err == nil {
			admitted++
			d(true)
		}
	}
	if st := l.Stats(); admitted == 0 {
		t.Fatalf("token bucket enabled at MaxRate 1000/s admitted %d of 50 requests over 50 ms (rate %v)", admitted, st.Rate)
	}
}

// TestConfigRejectsNonFinite: NaN tunables are invalid (Target and Backoff
// are checked; these are not), and must not be accepted.
func TestConfigRejectsNonFinite(t *testing.T) {
	nan := math.NaN()
	for name, cfg := range map[string]aimd.Config{
		"Decrease":   {Decrease: nan},
		"Increase":   {Increase: nan},
		"Gain":       {Gain: nan},
		"MemoryHigh": {MemoryHigh: nan},
		"MemoryLow":  {MemoryLow: nan},
		"MaxRate":    {MaxRate: nan},
		"MinRate":    {MinRate: nan, MaxRate: 10},
	} {
		cfg.Manual, cfg.MemoryLimit = true, -1
		if _, err := aimd.New(cfg); err == nil {
			t.Errorf("Config{%s: NaN} accepted", name)
		}
	}
}

// TestCgroupMalformed: malformed quota or usage must give an error,
// not a silently wrong value.
func TestCgroupMalformed(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"v2 cpu.max garbage quota": {
			"proc/self/cgroup": "0::/\n", "sys/fs/cgroup/cgroup.controllers": "cpu\n",
			"sys/fs/cgroup/cpu.max": "abc 100000\n", "sys/fs/cgroup/cpu.stat": "usage_usec 1\n",
		},
		"v2 cpu.max infinite quota": {
			"proc/self/cgroup": "0::/\n", "sys/fs/cgroup/cgroup.controllers": "cpu\n",
			"sys/fs/cgroup/cpu.max": "inf 100000\n", "sys/fs/cgroup/cpu.stat": "usage_usec 1\n",
		},
		"v2 cpu.max one field": {
			"proc/self/cgroup": "0::/\n", "sys/fs/cgroup/cgroup.controllers": "cpu\n",
			"sys/fs/cgroup/cpu.max": "50000\n", "sys/fs/cgroup/cpu.stat": "usage_usec 1\n",
		},
		"v2 negative usage": {
			"proc/self/cgroup": "0::/\n", "sys/fs/cgroup/cgroup.controllers": "cpu\n",
			"sys/fs/cgroup/cpu.max": "50000 100000\n", "sys/fs/cgroup/cpu.stat": "usage_usec -5\n",
		},
		"v2 usage overflows Duration": {
			"proc/self/cgroup": "0::/\n", "sys/fs/cgroup/cgroup.controllers": "cpu\n",
			"sys/fs/cgroup/cpu.max": "50000 100000\n", "sys/fs/cgroup/cpu.stat": "usage_usec 9300000000000000\n",
		},
		"v1 garbage quota": {
			"proc/self/cgroup":                            "3:cpu,cpuacct:/\n",
			"sys/fs/cgroup/cpu,cpuacct/cpuacct.usage":     "42\n",
			"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us":  "5O000\n", // letter O
			"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n",
		},
	} {
		t.Run(name, func(t *testing.T) {
			c := &aimd.CgroupCPU{Root: writeFiles(t, files)}
			used, cores, err := c.Read()
			if err == nil {
				t.Errorf("no error: used %v, cores %v", used, cores)
			}
		})
	}
}

// TestStatsRateZeroWithoutBucket: Stats.Rate is documented as 0 without a
// token bucket. A bucket switched off with SetConfig while MinRate stayed
// above 0 left the internal rate clamped to MinRate, and Stats showed it.
func TestStatsRateZeroWithoutBucket(t *testing.T) {
	cfg := aimd.Config{Manual: true, Initial: 10, Max: 100, MaxRate: 5, Period: time.Second, MemoryLimit: -1}
	l, err := aimd.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got := l.Stats().Rate; got != 5 {
		t.Fatalf("Rate with a bucket = %v, want 5", got)
	}
	cfg.MaxRate, cfg.MinRate = 0, 10
	if err := l.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	if got := l.Stats().Rate; got != 0 {
		t.Fatalf("Rate without a bucket = %v, want 0", got)
	}
}
