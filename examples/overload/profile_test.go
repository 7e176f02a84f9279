package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cpuProfile is a CPU profile of samples (count, stack of function names,
// innermost first) at period ns.
type stackSample struct {
	n     int64
	stack []string
}

func cpuProfile(period int64, samples []stackSample) *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     period,
	}
	fns := map[string]*profile.Function{}
	for _, ss := range samples {
		s := &profile.Sample{Value: []int64{ss.n, ss.n * period}}
		for _, name := range ss.stack {
			f := fns[name]
			if f == nil {
				f = &profile.Function{ID: uint64(len(fns) + 1), Name: name}
				fns[name] = f
				p.Function = append(p.Function, f)
			}
			loc := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: f}}}
			p.Location = append(p.Location, loc)
			s.Location = append(s.Location, loc)
		}
		p.Sample = append(p.Sample, s)
	}
	return p
}

func TestSampleShare(t *testing.T) {
	tests := []struct {
		name    string
		samples []stackSample
		want    share
	}{
		{"none", []stackSample{}, share{}},
		{"leaf in shed", []stackSample{
			{3, []string{"github.com/tierkit/tierkit/shed.(*Shedder).Acquire", "main.serve"}},
			{7, []string{"main.burn", "main.serve"}},
		}, share{hits: 3, total: 10}},
		{"runtime under aimd counts", []stackSample{
			{2, []string{"runtime.selectgo", "github.com/tierkit/tierkit/aimd.(*Limiter).Tick"}},
			{8, []string{"runtime.mallocgc", "main.serve"}},
		}, share{hits: 2, total: 10}},
		{"other packages named alike do not", []stackSample{
			{5, []string{"github.com/tierkit/tierkit/shedder.Run"}},
			{5, []string{"github.com/other/shed.Acquire"}},
		}, share{hits: 0, total: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sampleShare(cpuProfile(1e7, tt.samples), machinery)
			assert.Equal(t, tt.want, got)
		})
	}
	assert.Zero(t, share{}.percent())
	assert.InDelta(t, 30.0, share{hits: 3, total: 10}.percent(), 1e-9)
}

// TestRescaleProfile: a profile sampled faster than its header says gets the
// period that makes its samples add up to the CPU measured, and its share
// does not change.
func TestRescaleProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	p := cpuProfile(int64(10*time.Millisecond), []stackSample{
		{250, []string{"github.com/tierkit/tierkit/shed.(*Shedder).release"}},
		{750, []string{"main.burn"}},
	})
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, p.Write(f))
	require.NoError(t, f.Close())

	p, err = readProfile(path)
	require.NoError(t, err)
	require.NoError(t, rescaleProfile(p, path, 4*time.Second, 1000)) // 1,000 samples in 4 s of CPU: 4 ms each
	got, err := readProfile(path)
	require.NoError(t, err)
	assert.Equal(t, int64(4*time.Millisecond), got.Period)
	var cpu int64
	for _, s := range got.Sample {
		cpu += s.Value[1]
	}
	assert.Equal(t, int64(4*time.Second), cpu)
	assert.Equal(t, share{hits: 250, total: 1000}, sampleShare(got, machinery))
}

func TestReadProfileErrors(t *testing.T) {
	_, err := readProfile(filepath.Join(t.TempDir(), "missing"))
	require.Error(t, err)
	bad := filepath.Join(t.TempDir(), "bad")
	require.NoError(t, os.WriteFile(bad, []byte("not a profile"), 0o644))
	_, err = readProfile(bad)
	require.Error(t, err)
}

// TestStartProfile: a profile started at the default rate and at a faster one
// stops with its share read, and its file stays a valid profile whose CPU
// adds up to what stop was told (when it holds samples).
func TestStartProfile(t *testing.T) {
	for _, hz := range []int{defaultProfileHz, 1000} {
		path := filepath.Join(t.TempDir(), "cpu.pprof")
		stop, err := startProfile(path, hz)
		require.NoError(t, err)
		start, _ := processCPU()
		burn(50 * time.Millisecond)
		end, _ := processCPU()
		sh, err := stop(end - start)
		require.NoError(t, err, "%d Hz", hz)
		require.LessOrEqual(t, sh.hits, sh.total)
		p, err := readProfile(path)
		require.NoError(t, err)
		var n, cpu int64
		for _, s := range p.Sample {
			n += s.Value[0]
			cpu += s.Value[1]
		}
		require.Equal(t, sh.total, n, "%d Hz: the share counts every sample", hz)
		if hz != defaultProfileHz && n > 0 {
			// the period is the CPU over the samples, rounded down to a ns
			assert.InDelta(t, float64(end-start), float64(cpu), float64(n), "%d Hz: samples add up to the CPU", hz)
		}
	}
}
