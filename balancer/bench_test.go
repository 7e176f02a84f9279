package balancer_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

var sinkW []float64

// BenchmarkStep measures one run over a tier, against the naive baseline of a plain
// proportional step (no classification, no guardrails).
func BenchmarkStep(b *testing.B) {
	for _, n := range []int{200, 2000} {
		m := newModel(9, n, func(i int) float64 { return 0.85 + 0.3*float64(i%97)/97 }, 4)
		hs := m.observe()
		b.Run(fmt.Sprintf("hosts=%d/tierkit", n), func(b *testing.B) {
			bal, err := balancer.New(balancer.Config{})
			require.NoError(b, err)
			b.ReportAllocs()
			for b.Loop() {
				res, err := bal.Step(time.Unix(0, 0), hs)
				if err != nil {
					b.Fatal(err)
				}
				sinkW = sinkW[:0]
				sinkW = append(sinkW, res.Hosts[0].New)
			}
			b.ReportMetric(float64(n), "hosts/op")
		})
		b.Run(fmt.Sprintf("hosts=%d/naive-proportional", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var mean float64
				for _, h := range hs {
					mean += h.CPU
				}
				mean /= float64(len(hs))
				w := make([]float64, len(hs))
				for i, h := range hs {
					w[i] = math.Max(1e-6, h.Weight*(1+0.5*(mean-h.CPU)/mean))
				}
				sinkW = w
			}
			b.ReportMetric(float64(n), "hosts/op")
		})
	}
}
