package main

import (
	"fmt"
	"os"
	"regexp"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/google/pprof/profile"
)

// machinery matches the functions whose samples (with everything they call)
// count as the shedder's CPU: the shed and aimd packages.
var machinery = regexp.MustCompile(`tierkit/(shed|aimd)\.`)

// pprofFocusArgs are the flags of go tool pprof that report the same share
// as sampleShare in the header of its output ("Showing nodes accounting for
// ..., X% of ... total"). -nodefraction=0 keeps every node: by default pprof
// drops those whose cumulative value is under 0.5% of the focused samples
// (its "Dropped N nodes" line), and once these pass 200 (a 20 s run at
// -profilehz 1000) its header leaves out their samples.
var pprofFocusArgs = []string{"-top", "-nodefraction=0", "-focus", machinery.String()}

// defaultProfileHz is runtime/pprof's sampling rate.
const defaultProfileHz = 100

// startProfile starts a CPU profile written to path at hz samples per second
// of CPU. At the default 100 Hz a 20 s run at 1.8 cores gives the shed and
// aimd about 100 samples: one run's share is then known to about +-10%, too
// coarse to tell changes of a few percent of it apart. runtime/pprof has no
// rate of its own, so above 100 Hz the rate is set first (the runtime prints
// that it cannot change it, and keeps the one set). The kernel may deliver
// fewer (Linux checks CPU-time timers once a tick: at most 250 samples a
// second of CPU with a 250 Hz tick), so stop takes the CPU the process used
// while profiling and rewrites the profile's period, which StartCPUProfile
// wrote as 10 ms, as that CPU over the samples, so that pprof's seconds are
// right. stop returns the share of the samples under the shed and aimd
// packages.
func startProfile(path string, hz int) (stop func(cpu time.Duration) (share, error), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if hz != defaultProfileHz {
		runtime.SetCPUProfileRate(hz)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		runtime.SetCPUProfileRate(0)
		_ = f.Close()
		return nil, err
	}
	return func(cpu time.Duration) (share, error) {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return share{}, err
		}
		p, err := readProfile(path)
		if err != nil {
			return share{}, err
		}
		sh := sampleShare(p, machinery)
		if hz != defaultProfileHz {
			err = rescaleProfile(p, path, cpu, sh.total)
		}
		return sh, err
	}, nil
}

// rescaleProfile rewrites p, read from path, whose n samples cover cpu of
// CPU time, with the period that makes them add up to it.
func rescaleProfile(p *profile.Profile, path string, cpu time.Duration, n int64) error {
	if n == 0 || cpu <= 0 {
		return nil
	}
	period := int64(cpu) / n
	p.Period = period
	for _, s := range p.Sample {
		// values: samples (count), cpu (nanoseconds = count x period)
		s.Value[1] = s.Value[0] * period
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := p.Write(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

func readProfile(path string) (*profile.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, err
	}
	if len(p.SampleType) != 2 {
		return nil, fmt.Errorf("profile %s: %d sample types, want 2 (samples, cpu)", path, len(p.SampleType))
	}
	return p, nil
}

// share is the part of a CPU profile's samples whose stacks hold a function
// matching re, as pprof -focus counts it.
type share struct {
	hits, total int64
}

func (s share) percent() float64 {
	if s.total == 0 {
		return 0
	}
	return 100 * float64(s.hits) / float64(s.total)
}

func sampleShare(p *profile.Profile, re *regexp.Regexp) share {
	var sh share
	for _, s := range p.Sample {
		n := s.Value[0]
		sh.total += n
		if stackMatches(s, re) {
			sh.hits += n
		}
	}
	return sh
}

func stackMatches(s *profile.Sample, re *regexp.Regexp) bool {
	for _, loc := range s.Location {
		for _, l := range loc.Line {
			if l.Function != nil && re.MatchString(l.Function.Name) {
				return true
			}
		}
	}
	return false
}
