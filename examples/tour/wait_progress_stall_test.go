package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestWaitProgressStallAfterCountIsNoTimeout: a count read, then a stall
// before the wait looks at the clock (the goroutine descheduled on a busy
// machine, here a count that returns late), is no interval without progress:
// the count had not been read again. waitProgress read the clock after the
// count and failed TestWaitProgressOutlastsTheBound under the race detector
// on 2 shared cores ("waited 100ms with no progress for a rising count (289
// of 300)").
func TestWaitProgressStallAfterCountIsNoTimeout(t *testing.T) {
	const d = 20 * time.Millisecond
	calls := 0
	count := func() uint64 {
		calls++
		switch calls {
		case 1:
			return 1
		case 2: // read as 1, then descheduled for longer than d
			time.Sleep(3 * d) // stands for the descheduling, waits for nothing
			return 1
		default:
			return 2
		}
	}
	require.NoError(t, waitProgress(d, "a count read before a stall", 2, count))
}
