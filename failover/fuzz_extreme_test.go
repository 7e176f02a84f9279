package failover_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// extremes are the sizes FuzzStepExtreme draws demands, capacities and host CPUs
// from: zero, subnormal, tiny, ordinary and near the float64 maximum.
var extremes = []float64{
	0, 5e-324, 1e-310, 1e-300, 1e-9, 0.5, 0.9, 1, 1000, 1e300, 1e308, math.MaxFloat64,
}

// fuzzBytes reads an input a byte at a time, from its start again once it is
// read to its end: a short input replays its loads, run after run.
type fuzzBytes struct {
	data []byte
	pos  int
}

func (b *fuzzBytes) byte() byte {
	if len(b.data) == 0 {
		return 0
	}
	x := b.data[b.pos%len(b.data)]
	b.pos++
	return x
}

// float returns one of extremes, or, for a selector past them, a raw float64
// whose top 16 bits (sign, exponent, 4 bits of mantissa) are the next two bytes:
// NaN, infinities, negatives and subnormals included.
func (b *fuzzBytes) float() float64 {
	sel := int(b.byte())
	if sel < 2*len(extremes) {
		return extremes[sel%len(extremes)]
	}
	hi := uint64(b.byte())<<8 | uint64(b.byte())
	return math.Float64frombits(hi << 48)
}

// load reads one region's report; ok is false for a missing report.
func (b *fuzzBytes) load(name string) (failover.Load, bool) {
	flags := b.byte()
	if flags&0x80 != 0 {
		return failover.Load{}, false
	}
	l := failover.Load{Region: name, Demand: b.float(), Capacity: b.float()}
	for range flags % 4 { // at most 3 hosts a region
		l.HostCPU = append(l.HostCPU, b.float())
	}
	return l, true
}

// The fuzzer minimizes every input that finds new coverage, silently (the
// progress line reads 0 execs/s meanwhile), and removing every subset of an
// input's bytes takes a number of execs quadratic in its length. With inputs of
// hundreds of bytes, each driving up to 64 checked runs, that took so long per
// new input that the fuzzer seemed to stall. So the target reads at most
// maxExtremeInput bytes (replayed from the start as needed) and steps
// maxExtremeRuns runs (with a MinHold of 2, the hysteresis still winds down and
// recovers within them).
const (
	maxExtremeInput = 48
	maxExtremeRuns  = 8
)

// FuzzStepExtreme drives the six-region tier with demands, capacities and host CPUs
// of every size (and raw floats), missing reports and a clock that may go backwards.
// A run with a bad figure must be refused with a *LoadError; every other run's table
// must keep the table invariants, survive the JSON round trip, carry no NaN in any
// signal, and keep Want, Out and Unplaced in [0, 1] and In finite and >= 0.
func FuzzStepExtreme(f *testing.F) {
	f.Add([]byte{1, 0x03, 8, 8, 5, 6, 7})
	f.Add([]byte{2, 0x02, 11, 1, 6, 6, 0x01, 0, 11, 11, 0x80, 0x03, 9, 1, 11, 11, 11})
	f.Add([]byte{0xff, 0x01, 255, 0x7f, 0xf8, 8, 0, 0x02, 8, 255, 0x00, 0x01, 9, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := six()
		cfg.MinHold = 2
		r := mustNew(t, cfg)
		in := &fuzzBytes{data: data[:min(len(data), maxExtremeInput)]}
		now := t0
		for run := 0; run < maxExtremeRuns && len(data) > 0; run++ {
			now = now.Add(time.Duration(int8(in.byte())) * time.Minute) // may go backwards
			tab, ls, ok := stepFuzzed(t, r, cfg, in, now)
			if !ok {
				continue
			}
			checkTable(t, cfg, ls, tab)
			checkWire(t, tab)
			checkExtreme(t, tab)
		}
	})
}

// stepFuzzed steps r at now with the loads in draws for cfg's regions. A
// refused step must be a *LoadError (ok false: nothing to check).
func stepFuzzed(t *testing.T, r *failover.Router, cfg failover.Config, in *fuzzBytes, now time.Time) (tab failover.Table, ls []failover.Load, ok bool) {
	t.Helper()
	for _, reg := range cfg.Regions {
		if l, ok := in.load(reg.Name); ok {
			ls = append(ls, l)
		}
	}
	tab, err := r.Step(now, ls)
	if err != nil {
		var le *failover.LoadError
		require.True(t, errors.As(err, &le), "%v", err)
		return tab, ls, false
	}
	return tab, ls, true
}

// checkExtreme checks what checkTable leaves open for extreme inputs.
func checkExtreme(t *testing.T, tab failover.Table) {
	t.Helper()
	for _, d := range tab.Regions {
		s := d.Signal
		for _, x := range []float64{s.Mean, s.P, s.HotShare, s.Home, s.Trend, s.Projected} {
			require.False(t, math.IsNaN(x), "%s: NaN in %+v", d.Name, s)
		}
		for _, x := range []float64{d.Want, d.Out, d.Unplaced} {
			require.True(t, x >= 0 && x <= 1, "%s: %+v", d.Name, d)
		}
		require.True(t, d.In >= 0 && !math.IsInf(d.In, 0), "%s: In %v", d.Name, d.In)
	}
}
