package aimd_test

import (
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/tierkit/tierkit/aimd"
)

// FuzzUpdate: for any limit, load and parameters with Min <= Max, every step keeps
// the limit within [Min, Max], and a run of steps never leaves it, with and
// without fast recovery (Recover).
func FuzzUpdate(f *testing.F) {
	f.Add(100.0, 0.5, 0.9, 1.0, 0.5, 0.7, 1.0, 1000.0)
	f.Add(1.0, math.Inf(1), 0.9, 1.0, 0.5, 0.7, 1.0, 10.0)
	f.Add(math.NaN(), math.NaN(), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
	f.Add(-5.0, -1.0, 2.0, 100.0, 10.0, 0.01, 3.0, 3.0)
	f.Fuzz(func(t *testing.T, limit, load, target, inc, gain, dec, lo, hi float64) {
		for _, v := range []float64{target, inc, gain, dec, lo, hi} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return // the Config validation rejects these
			}
		}
		if lo > hi || dec >= 1 {
			return
		}
		// Backoff spans valid fractions and, beyond 1, values Update must
		// treat as the default.
		p := aimd.Params{Target: target, Increase: inc, Gain: gain, Decrease: dec, Backoff: math.Mod(gain, 1.5),
			Min: lo, Max: hi}
		rl, rs := limit, aimd.RecoverState{} // the same steps with fast recovery
		for i := range 50 {
			limit = aimd.Update(limit, load, p)
			if !(limit >= lo && limit <= hi) {
				t.Fatalf("step %d: limit %v outside [%v, %v] (load %v)", i, limit, lo, hi, load)
			}
			rl, rs = aimd.Recover(rl, aimd.Update(rl, load, p), load, rs, p)
			if !(rl >= lo && rl <= hi) {
				t.Fatalf("step %d: with Recover, limit %v outside [%v, %v] (load %v, state %+v)", i, rl, lo, hi, load, rs)
			}
			load = math.Mod(load*1.7+0.3, 3) // wander over loads around the target
		}
	})
}

// FuzzLimiterSignal feeds a Limiter an arbitrary signal, one float per control
// step (NaN, infinities and negatives included), and checks that its limit and
// rate stay within their bounds after every step.
func FuzzLimiterSignal(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0xf0, 0x7f}, uint8(3), uint8(50))
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, raw []byte, lo, span uint8) {
		minL, maxL := int(lo)+1, int(lo)+1+int(span)
		var vals []float64
		for i := 0; i+8 <= len(raw) && len(vals) < 500; i += 8 {
			vals = append(vals, math.Float64frombits(binary.LittleEndian.Uint64(raw[i:])))
		}
		i := 0
		l, err := aimd.New(aimd.Config{
			Signal: aimd.SignalFunc(func(time.Time) (float64, error) {
				v := vals[i%len(vals)]
				i++
				return v, nil
			}),
			Manual: true, Min: minL, Max: maxL, MinRate: 1, MaxRate: 1000, MemoryLimit: -1,
			Backoff: float64(span%4) / 4, // 0 (the full correction), 0.25, 0.5, 0.75
			Recover: lo%2 == 1,
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(vals) == 0 {
			return
		}
		now := time.Unix(0, 0)
		for range 2 * len(vals) {
			now = now.Add(100 * time.Millisecond)
			if err := l.Tick(now); err != nil {
				t.Fatal(err)
			}
			st := l.Stats()
			if st.Limit < minL || st.Limit > maxL || l.Limit() != st.Limit {
				t.Fatalf("limit %d outside [%d, %d]", st.Limit, minL, maxL)
			}
			if !(st.Rate >= 1 && st.Rate <= 1000) {
				t.Fatalf("rate %v outside [1, 1000]", st.Rate)
			}
		}
	})
}
