package cputime

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOffThreadPerOpSeesEachClock: the process clock counts the CPU an op
// burns on another thread, the calling thread's clock does not; the helper
// the bench packages' tests use to check their reporters tells them apart.
func TestOffThreadPerOpSeesEachClock(t *testing.T) {
	if _, ok := Process(); !ok {
		t.Skip("no CPU clock on this platform")
	}
	const burn = 1_000_000 // ns per op
	proc, err := OffThreadPerOp(burn, Loop(ReportProcess))
	require.NoError(t, err)
	require.GreaterOrEqual(t, proc, 0.9*burn, "the process's CPU per op")
	thread, err := OffThreadPerOp(burn, Loop(ReportThread))
	require.NoError(t, err)
	require.Less(t, thread, 0.5*burn, "the calling thread's CPU per op")
}
