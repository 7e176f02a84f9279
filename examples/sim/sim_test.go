package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ciRuns is the balancer run count of the CI-sized simulation (the command default is
// 300); the failover day is simulated in full.
const ciRuns = 120

// TestTargets asserts every target of the issue for the tierkit controllers at a
// CI-friendly size, on two seeds.
func TestTargets(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		res := simulateAll(seed, ciRuns, 24*60)
		_, rows := balancerTargets(res.bal)
		for _, r := range rows {
			assert.True(t, r.cells[0].ok, "seed %d balancer: %s: %s", seed, r.target, r.cells[0].text)
		}
		_, rows = failoverTargets(res.fail, res.knob)
		for _, r := range rows {
			if !r.cells[0].na {
				assert.True(t, r.cells[0].ok, "seed %d failover: %s: %s", seed, r.target, r.cells[0].text)
			}
		}
		// The baselines must actually miss what they are there to show.
		_, rows = balancerTargets(res.bal)
		assert.False(t, rows[0].cells[1].ok, "static capacity weights should not balance")
		_, rows = failoverTargets(res.fail, res.knob)
		assert.False(t, rows[0].cells[1].ok, "health-only priorities should let a region pass 90%%")
	}
}

// TestDeterministic: another seed prints another table. That the same seed
// prints the same table, run after run, TestREADMEFromRawOutput shows: seed 1
// must print the committed output byte for byte.
func TestDeterministic(t *testing.T) {
	var a, c bytes.Buffer
	printAll(&a, simulateAll(7, 40, 600))
	printAll(&c, simulateAll(8, 40, 600))
	assert.NotEqual(t, a.String(), c.String())
}

// TestPlots writes the plots and checks they are non-trivial files.
func TestPlots(t *testing.T) {
	dir := t.TempDir()
	res := simulateAll(3, 40, 480)
	require.NoError(t, writePlots(dir, res.bal, res.fail))
	for _, name := range []string{"balancer-maxmean", "balancer-moved", "failover-cpu"} {
		for _, ext := range []string{".svg", ".png"} {
			st, err := os.Stat(filepath.Join(dir, name+ext))
			require.NoError(t, err)
			assert.Greater(t, st.Size(), int64(10_000), name+ext)
		}
	}
}
