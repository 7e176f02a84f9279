package batcher

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDecide(t *testing.T) {
	tests := []struct {
		policy                              FlushPolicy
		live, bytes, maxItems, maxBytes, fl int
		want                                action
	}{
		{FlushOnLinger, 1, 0, 4, 0, 0, keepOpen},
		{FlushOnLinger, 4, 0, 4, 0, 0, flushFull},
		{FlushOnLinger, 2, 10, 4, 10, 3, flushFull},
		{FlushOnLinger, 2, 9, 4, 10, 0, keepOpen},
		{FlushNatural, 1, 0, 4, 0, 0, flushIdle},     // nobody in flight: at once
		{FlushNatural, 3, 0, 4, 0, 0, flushIdle},     // gathered while a flush ran, which has returned
		{FlushNatural, 1, 0, 4, 0, 1, keepOpen},      // a flush is in flight: gather
		{FlushNatural, 4, 0, 4, 0, 1, flushFull},     // full wins over gathering
		{FlushNatural, 2, 12, 4, 10, 2, flushFull},   // so does the byte limit
		{FlushNatural, 1, 0, 1, 0, 0, flushFull},     // MaxItems 1: every item is full
		{FlushNatural, 2, 5, 8, 10, 1, keepOpen},     // under both limits
		{FlushNatural, 1, 50, 8, 10, 0, flushFull},   // an oversized item alone
		{FlushOnLinger, 1, 50, 8, 0, 0, keepOpen},    // no byte limit
		{FlushNatural, 3, 0, 128, 0, 5, keepOpen},    // several in flight (linger let them go)
		{FlushNatural, 128, 0, 128, 0, 5, flushFull}, // full
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v/live=%d,bytes=%d,max=%d/%d,flushing=%d", tt.policy, tt.live, tt.bytes, tt.maxItems, tt.maxBytes, tt.fl), func(t *testing.T) {
			assert.Equal(t, tt.want, decide(tt.policy, tt.live, tt.bytes, tt.maxItems, tt.maxBytes, tt.fl))
		})
	}
}

func TestArmLingerAndFlushOnReturn(t *testing.T) {
	tests := []struct {
		policy          FlushPolicy
		flushing, live  int
		wantArm, wantFl bool
	}{
		{FlushOnLinger, 0, 3, true, false}, // the linger policy always waits for the timer
		{FlushOnLinger, 2, 3, true, false},
		{FlushNatural, 0, 0, false, false}, // the opening item flushes it at once: no timer
		{FlushNatural, 1, 0, true, false},  // nothing gathered: nothing to flush on return
		{FlushNatural, 1, 5, true, true},   // gathered while in flight: flush on return
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v/flushing=%d,live=%d", tt.policy, tt.flushing, tt.live), func(t *testing.T) {
			assert.Equal(t, tt.wantArm, armLinger(tt.policy, tt.flushing))
			assert.Equal(t, tt.wantFl, flushOnReturn(tt.policy, tt.live))
		})
	}
}

func TestFlushPolicyString(t *testing.T) {
	assert.Equal(t, "linger", FlushPolicy(0).String())
	assert.Equal(t, "linger", FlushOnLinger.String())
	assert.Equal(t, "natural", FlushNatural.String())
	assert.Equal(t, "FlushPolicy(9)", FlushPolicy(9).String())
}
