package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/internal/leak"
)

// TestRealModeShort runs the real mode for half a second of warm-up and half a
// second measured at 2 ms of CPU per request (about 1,400 requests): in both
// phases every offered request is admitted or shed, the calibration charges a
// request at least its work, and every goroutine it started (the control loop, the
// requests) is gone afterwards. It checks accounting and hygiene, not the
// figures, which need the full run on an idle machine (README.md).
func TestRealModeShort(t *testing.T) {
	leak.Check(t)
	r, err := runReal(realConfig{Duration: 500 * time.Millisecond, Warmup: 500 * time.Millisecond, Work: 2 * time.Millisecond})
	require.NoError(t, err)
	for _, p := range []*phaseStats{r.warm, r.run} {
		for k := range 2 {
			assert.Positive(t, p.offered[k].Load())
			assert.Equal(t, p.offered[k].Load(), p.admitted[k].Load()+p.shed[k].Load(), "class %d", k)
			assert.LessOrEqual(t, p.inDeadline[k].Load(), p.admitted[k].Load())
		}
	}
	assert.GreaterOrEqual(t, r.cpuPerReq, 2*time.Millisecond, "a request costs at least its work")
	assert.Positive(t, r.capacity)
	assert.GreaterOrEqual(t, r.limitMin, 1)
	assert.LessOrEqual(t, r.limitMax, 256)
	var b stringsBuilder
	r.print(&b)
	assert.Contains(t, b.String(), "real mode")
}
