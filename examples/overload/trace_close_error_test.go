package main

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// closeFailer is a trace file whose Close reports a write it could not make,
// as a network file system or a full disk may only at close.
type closeFailer struct {
	bytes.Buffer
	closed int
}

var errLostWrite = errors.New("close: no space left on device")

func (c *closeFailer) Close() error { c.closed++; return errLostWrite }

// TestTraceCloseErrorFailsRun: with -trace, the trace file's Close error
// was dropped (defer f.Close()), so a trace lost at close (a full disk, a
// network file system's write-back) went unreported and the run exited 0.
// The error now fails the run, as a write error does (exit 1).
func TestTraceCloseErrorFailsRun(t *testing.T) {
	cfg := realConfig{Duration: 300 * time.Millisecond, Warmup: 300 * time.Millisecond, Work: 2 * time.Millisecond, Cores: 1}
	trace := &closeFailer{}
	_, err := runRealTraced(cfg, trace)
	require.ErrorIs(t, err, errLostWrite, "a trace lost at close is reported")
	assert.Equal(t, 1, trace.closed, "the trace is closed once")
	assert.Positive(t, trace.Len(), "the trace was written before the close")
}
