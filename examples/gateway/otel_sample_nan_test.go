package main

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOTelSampleNaNRefused: -otel-sample takes what strconv parses, NaN
// included, which passed the range check (every comparison with NaN is
// false) and reached the sampler as a ratio that samples every trace on
// amd64 and none on arm64. It is refused as any value outside 0 < r <= 1.
func TestOTelSampleNaNRefused(t *testing.T) {
	for _, r := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -0.5, 1.5} {
		_, err := Config{OTel: "stdout", OTelSample: r}.withDefaults()
		require.ErrorContains(t, err, "otel_sample", "otel_sample %v", r)
	}
	for _, r := range []float64{0, 1e-12, 0.5, 1} { // 0: the default, 1
		_, err := Config{OTel: "stdout", OTelSample: r}.withDefaults()
		require.NoError(t, err, "otel_sample %v", r)
	}
}
