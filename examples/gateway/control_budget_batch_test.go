package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// TestControlBudgetCountsRequests: the change budget counts change requests,
// not the knobs they change: a request that sets three knobs takes one of
// the 20, as one that sets one does (control's Config.Rate: one token per
// applied request, whatever its number of changes). The README called the
// budget "20 changes back to back".
func TestControlBudgetCountsRequests(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	now := time.Now()
	_, err := in.reg.ApplyAt(now, control.Request{Who: "test", Changes: []control.Change{
		{Knob: "batcher.linger", Value: control.Duration(150 * time.Microsecond)},
		{Knob: "batcher.max_items", Value: control.Int(7)},
		{Knob: "gateway.coalesce", Value: control.Bool(!in.gw.coalesceOn.Load())},
	}})
	require.NoError(t, err, "a batch of three knobs")
	for i := range 19 {
		_, err := in.reg.ApplyAt(now, control.Request{Who: "test", Changes: []control.Change{
			{Knob: "batcher.max_items", Value: control.Int(int64(8 + i))}}})
		require.NoError(t, err, "request %d of 20: the batch of three took one token", i+2)
	}
	_, err = in.reg.ApplyAt(now, control.Request{Who: "test", Changes: []control.Change{
		{Knob: "batcher.max_items", Value: control.Int(100)}}})
	assert.ErrorIs(t, err, control.ErrRateLimited, "the 21st request at once")
}
