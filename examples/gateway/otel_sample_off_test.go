package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOTelSampleNeedsOTel: -otel-sample without -otel stdout was accepted
// and ignored: "gateway -otel-sample 0.01" made no trace and said nothing.
// A share other than the default is refused while traces are off; the
// default written out (1, as the README's full file has it) is not.
// TestBadSettingExitsWithUsageStatus runs the flag alone through main.
// Found by a review.
func TestOTelSampleNeedsOTel(t *testing.T) {
	for _, c := range []Config{{OTelSample: 0.01}, {OTel: "off", OTelSample: 0.5}} {
		_, err := c.withDefaults()
		require.ErrorContains(t, err, "otel_sample", "%+v", c)
		require.ErrorContains(t, err, "otel off", "%+v", c)
	}
	for _, c := range []Config{{OTelSample: 1}, {OTel: "off"}, {OTel: "stdout", OTelSample: 0.01}} {
		_, err := c.withDefaults()
		require.NoError(t, err, "%+v", c)
	}
}
