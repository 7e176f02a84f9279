package failover_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// configValues are the figures FuzzConfig draws a Config's float fields from:
// the default (0), each edge the validation draws, and values beyond them
// (negative, NaN, infinite, subnormal, the float64 maximum).
var configValues = [...]float64{0, 5e-324, 1e-12, 1e-9, 0.01, 0.5, 0.68, 0.75, 0.8, 1, 2, 100, 1000,
	math.MaxFloat64, -1, math.NaN(), math.Inf(1), math.Inf(-1), -5e-324}

// configDefaults are the documented defaults of the float fields, in the
// order fuzzConfig reads them.
var configDefaults = [...]float64{0.9, 0.85, 0.2, 0.3, 5, 0.80, 0.68, 0.75, 0.75, 0.02, 0.02}

// fuzzFloat maps a byte to a figure for a field whose default is def: an
// eighth of the bytes to configValues, the rest to [0.5, 1.5) times the
// default (144 is the default itself), so that many Configs a fuzzer draws
// are accepted and vary every field.
func fuzzFloat(b byte, def float64) float64 {
	if b < 32 {
		return configValues[int(b)%len(configValues)]
	}
	return def * (0.5 + float64(b-32)/224)
}

// fuzzConfig reads a Config of the six-region tier from the first 24 bytes
// of data (zero bytes past its end): the eleven float fields, MinHold, each
// region's three knobs (a byte for all three) and a2's ring weights.
func fuzzConfig(data []byte) failover.Config {
	var p [24]byte
	copy(p[:], data)
	cfg := six()
	fs := []*float64{&cfg.Percentile, &cfg.HotCPU, &cfg.HotShare, &cfg.TrendAlpha, &cfg.LeadRuns,
		&cfg.Enter, &cfg.Exit, &cfg.Target, &cfg.ReceiverMax, &cfg.DownStep, &cfg.MinChange}
	for i, f := range fs {
		*f = fuzzFloat(p[i], configDefaults[i])
	}
	cfg.MinHold = int(int8(p[11]))
	for i := range cfg.Regions {
		k := &cfg.Regions[i].Knobs
		k.Ring, k.Mega, k.Global = fuzzFloat(p[12+i], 50), fuzzFloat(p[18+i/2]^byte(i), 50), fuzzFloat(p[18+i/2], 50)
	}
	ring := cfg.Regions[1].Ring
	ring[0].Weight, ring[1].Weight = fuzzFloat(p[21], 70), fuzzFloat(p[22], 30)
	if p[23]&1 != 0 {
		ring[1].Region = "b1" // a ring across mega-regions
	}
	return cfg
}

// FuzzConfig: the Config is an operator's to change at runtime (SetConfig),
// so its fields take any value. New and SetConfig either accept a Config or
// return an error wrapping ErrInvalidConfig, and a refused SetConfig keeps
// the Config in force. Under every accepted Config, swapped in halfway
// through a run of arbitrary loads, every table keeps the property tests'
// invariants (checkTable, checkWire, checkExtreme: no NaN in a signal) and
// the Spilling gauge agrees with the table.
func FuzzConfig(f *testing.F) {
	f.Add(make([]byte, 24), make([]byte, 24), []byte{1, 0x03, 8, 8, 5, 6, 7})
	f.Add([]byte{144, 144, 144, 144, 144, 144, 144, 144, 144, 144, 144, 2, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 1},
		[]byte{15, 16, 17, 18, 14, 14, 14, 14, 14, 14, 14, 0x81, 0, 1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0},
		[]byte{2, 0x02, 11, 1, 6, 6, 0x01, 0, 11, 11, 0x80, 0x03, 9, 1, 11, 11, 11})
	f.Add([]byte{32, 5, 3, 3, 1, 9, 6, 7, 8, 3, 2, 1, 32, 40, 50, 60, 70, 80, 90, 100, 110, 1, 5, 0},
		[]byte{12, 12, 12, 12, 12, 10, 10, 10, 10, 12, 12, 0xff, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 0},
		[]byte{0xff, 0x01, 255, 0x7f, 0xf8, 8, 0, 0x02, 8, 255, 0x00, 0x01, 9, 9})
	f.Fuzz(func(t *testing.T, cfgBytes, cfg2Bytes, data []byte) {
		cfg, cfg2 := fuzzConfig(cfgBytes), fuzzConfig(cfg2Bytes)
		r, err := failover.New(cfg)
		if err != nil {
			require.True(t, errors.Is(err, failover.ErrInvalidConfig), "%v", err)
			r = mustNew(t, six())
			before := r.Config()
			require.Error(t, r.SetConfig(cfg))
			require.Equal(t, before, r.Config(), "a refused SetConfig changed the Config")
			cfg = six()
		}
		in := &fuzzBytes{data: data[:min(len(data), maxExtremeInput)]}
		now := t0
		for run := 0; run < maxExtremeRuns && len(data) > 0; run++ {
			if run == maxExtremeRuns/2 {
				before, stats := r.Config(), r.Stats()
				if err := r.SetConfig(cfg2); err != nil {
					require.True(t, errors.Is(err, failover.ErrInvalidConfig), "%v", err)
					require.Equal(t, before, r.Config(), "a refused SetConfig changed the Config")
					require.Equal(t, stats, r.Stats(), "a refused SetConfig changed the Stats")
				} else {
					cfg = cfg2
				}
			}
			now = now.Add(time.Duration(int8(in.byte())) * time.Minute)
			tab, ls, ok := stepFuzzed(t, r, cfg, in, now)
			if !ok {
				continue
			}
			checkTable(t, r.Config(), ls, tab)
			checkWire(t, tab)
			checkExtreme(t, tab)
			spilling := 0
			for _, d := range tab.Regions {
				if d.Phase == failover.Spilling {
					spilling++
				}
			}
			require.Equal(t, spilling, r.Stats().Spilling)
		}
	})
}
