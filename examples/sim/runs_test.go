package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunsTooFewForTheShocks: with -runs 10 the hot-outliers and
// regional-skew shocks (run 10) never happen, their p95 over the runs from
// onset on was NaN, and settle read -1 (never) for every row because no
// 20-run window fitted. The command refuses such a count instead of printing
// it; at the minimum every scenario's p95 is a number.
func TestRunsTooFewForTheShocks(t *testing.T) {
	require.Error(t, run(io.Discard, 1, 10, ""))
	require.Error(t, run(io.Discard, 1, 0, ""))

	n := minBalRuns()
	for _, sc := range balScenarios {
		r := runBalancer(defaultBal(n), 1, sc, staticCtl{})
		assert.False(t, math.IsNaN(r.P95), "%s p95 at %d runs", sc.name, n)
		assert.GreaterOrEqual(t, n-sc.onset, settleRuns, "%s: a settle window fits after onset", sc.name)
	}
}

// TestRunsBounded: -runs had no upper bound, so a huge count (a typo, or
// 1e9) was accepted and ran for days while its per-run series grew without
// limit. parseFlags refuses it, and a negative count, with the flag's range.
func TestRunsBounded(t *testing.T) {
	for _, v := range []string{"1000000000", "9223372036854775807", "-5", "0"} {
		var errOut bytes.Buffer
		_, err := parseFlags([]string{"-runs", v}, &errOut)
		require.Error(t, err, "-runs %s", v)
		assert.Contains(t, errOut.String(), "-runs", "-runs %s", v)
	}
	require.Error(t, run(io.Discard, 1, maxBalRuns+1, ""))
	o, err := parseFlags([]string{"-runs", fmt.Sprint(maxBalRuns)}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, maxBalRuns, o.runs)
	_, err = parseFlags([]string{"-runs", fmt.Sprint(minBalRuns())}, &bytes.Buffer{})
	require.NoError(t, err)
}
