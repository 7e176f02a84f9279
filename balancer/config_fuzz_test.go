package balancer_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// configValues are the figures FuzzConfig draws a Config's float fields from:
// the default (0), each edge the validation draws, and values beyond them
// (negative, NaN, infinite, subnormal, the float64 maximum).
var configValues = [...]float64{0, 5e-324, 1e-12, 1e-9, 0.01, 0.1, 0.25, 0.5, 1, 1.5, 10, 1e9,
	math.MaxFloat64, -1, math.NaN(), math.Inf(1)}

// configDefaults are the documented defaults of the float fields, in the
// order fuzzConfig reads them.
var configDefaults = [...]float64{1, 0.05, 0.5, 0.05, 0.03, 0.02, 0.25, 0.5, 0.85, 0.01, 0.25, 0.65, 0.10,
	0.10, 0.25, 5, 0.15, 0.05, 20}

// fuzzFloat maps a byte to a figure for a field whose default is def: an
// eighth of the bytes to configValues, the rest to [0, 2) times the default,
// so that most Configs a fuzzer draws are accepted and vary every field.
func fuzzFloat(b byte, def float64) float64 {
	if b < 32 {
		return configValues[int(b)%len(configValues)]
	}
	return def * float64(b-32) / 112
}

// fuzzInt maps a byte to a run count: 0 (the default) and -1 to -15 for the
// first 16 bytes, 0 to 239 for the others.
func fuzzInt(b byte) int {
	if b < 16 {
		return -int(b)
	}
	return int(b) - 16
}

// fuzzConfig reads a Config from the first 22 bytes of data (zero bytes
// past its end).
func fuzzConfig(data []byte) balancer.Config {
	var p [22]byte
	copy(p[:], data)
	k := 0 // the next float field, for its default
	f := func(i int) float64 { k++; return fuzzFloat(p[i], configDefaults[k-1]) }
	n := func(i int) int { return fuzzInt(p[i]) }
	return balancer.Config{TargetMedian: f(0), RecenterBand: f(1), Gain: f(2), MaxStep: f(3), Deadband: f(4),
		MaxMoveShare: f(5), WideShare: f(6), WideMaxStep: f(7), NewHostFactor: f(8), YoungRuns: n(9),
		ChurnWindow: n(10), ChurnShare: f(11), HotLoad: f(12), HotEfficiency: f(13), HotHold: n(14),
		HotMaxShare: f(15), RegionSpread: f(16), RegionEta: f(17), BimodalSeparation: f(18),
		BimodalMinShare: f(19), MinWeight: f(20), MaxWeight: f(21)}
}

// FuzzConfig: the Config is an operator's to change at runtime (SetConfig), so
// its fields take any value. New and SetConfig either accept a Config or
// return an error wrapping ErrInvalidConfig, and a refused SetConfig keeps the
// Config in force. Under every accepted Config, each run of arbitrary host
// reports keeps the property tests' invariants (checkResult: one finite
// decision per host, within [MinWeight, MaxWeight] x TargetMedian, the
// keyspace moved, the deadband and the throttle).
func FuzzConfig(f *testing.F) {
	f.Add(make([]byte, 22), []byte{10, 50, 1, 0, 20, 60, 1, 1, 30, 70, 0, 2, 40, 90, 3, 3}, uint8(4))
	f.Add([]byte{12, 40, 200, 90, 33, 250, 60, 140, 100, 25, 20, 70, 200, 180, 17, 130, 50, 90, 160, 200, 33, 255},
		[]byte{255, 255, 255, 255, 0, 0, 0, 0, 7, 200, 16, 1, 64, 120, 16, 2}, uint8(5))
	f.Add([]byte{40, 33, 255, 255, 250, 255, 255, 255, 255, 200, 17, 255, 40, 150, 200, 255, 255, 255, 255, 255, 255, 33},
		[]byte{1, 2, 3, 4, 5, 6, 7, 8, 100, 250, 30, 0}, uint8(7))
	f.Fuzz(func(t *testing.T, cfgBytes, data []byte, runs uint8) {
		cfg := fuzzConfig(cfgBytes)
		b, err := balancer.New(cfg)
		if err != nil {
			require.True(t, errors.Is(err, balancer.ErrInvalidConfig), "%v", err)
			b, err = balancer.New(balancer.Config{})
			require.NoError(t, err)
			before := b.Config()
			require.Error(t, b.SetConfig(cfg))
			require.Equal(t, before, b.Config(), "a refused SetConfig changed the Config")
			return
		}
		in := b.Config()
		var hosts []balancer.Host
		for i := 0; i+3 < len(data) && len(hosts) < 64; i += 4 {
			w := float64(data[i+2]) / 16 // relative to TargetMedian while that stays finite
			if scaled := w * in.TargetMedian; !math.IsInf(scaled, 0) {
				w = scaled
			}
			hosts = append(hosts, balancer.Host{
				ID:     fmt.Sprint("h", i/4),
				Cores:  1 + float64(data[i]),
				CPU:    float64(data[i+1]) / 128,
				Weight: w,
				Region: fmt.Sprint("r", data[i+3]%3),
				New:    data[i+3]%7 == 0,
			})
		}
		if len(hosts) == 0 {
			return
		}
		for r := range int(runs%8) + 1 {
			res, err := b.Step(t0, hosts)
			require.NoError(t, err)
			checkResult(t, in, hosts, res)
			for i, d := range res.Hosts {
				hosts[i].Weight, hosts[i].New = d.New, false
				hosts[i].CPU = math.Min(2, hosts[i].CPU*(1+0.01*float64(r)))
			}
		}
	})
}
