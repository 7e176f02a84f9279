package batcher_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
)

// invalidConfigs lists one Config per invalid field value, with the message
// that names it.
var invalidConfigs = []struct {
	name string
	give batcher.Config[int]
	want string
}{
	{"MaxItems", batcher.Config[int]{MaxItems: -1}, "batcher: MaxItems -1 is negative"},
	{"MaxBytes", batcher.Config[int]{MaxBytes: -1}, "batcher: MaxBytes -1 is negative"},
	{"MaxBytes without Size", batcher.Config[int]{MaxBytes: 10}, "batcher: MaxBytes 10 needs a Size func"},
	{"Linger", batcher.Config[int]{Linger: -time.Millisecond}, "batcher: Linger -1ms is negative"},
	{"Policy", batcher.Config[int]{Policy: batcher.FlushNatural + 1}, "batcher: unknown Policy FlushPolicy(3)"},
	{"FlushTimeout", batcher.Config[int]{FlushTimeout: -1}, "batcher: FlushTimeout -1ns is negative"},
	{"MaxInFlight", batcher.Config[int]{MaxInFlight: -1}, "batcher: MaxInFlight -1 is negative"},
	{"IdleTTL", batcher.Config[int]{IdleTTL: -1}, "batcher: IdleTTL -1ns is negative"},
}

func nopFlush(_ context.Context, _ int, _ []int, _ []batcher.Result[int]) error { return nil }

func TestConfigErrorsWrapErrInvalidConfig(t *testing.T) {
	for _, tt := range invalidConfigs {
		t.Run(tt.name, func(t *testing.T) {
			_, err := batcher.New(tt.give, nopFlush)
			require.ErrorIs(t, err, batcher.ErrInvalidConfig, "New")
			assert.EqualError(t, err, tt.want+": invalid config", "New")

			b, err := batcher.New(batcher.Config[int]{}, nopFlush)
			require.NoError(t, err)
			defer b.Close()
			err = b.SetConfig(tt.give)
			require.ErrorIs(t, err, batcher.ErrInvalidConfig, "SetConfig")
			assert.EqualError(t, err, tt.want+": invalid config", "SetConfig")
		})
	}
	// A nil flush func is refused like a bad Config (as txn refuses a nil Engine).
	_, err := batcher.New[int, int, int](batcher.Config[int]{}, nil)
	require.ErrorIs(t, err, batcher.ErrInvalidConfig)
}

// TestSetConfigInvalidKeepsPrevious: a refused SetConfig changes nothing, not
// even the fields of the refused Config that were valid.
func TestSetConfigInvalidKeepsPrevious(t *testing.T) {
	good := batcher.Config[int]{MaxItems: 7, Linger: time.Hour, Policy: batcher.FlushNatural,
		FlushTimeout: time.Minute, MaxInFlight: 3, IdleTTL: time.Hour}
	b, err := batcher.New(good, nopFlush)
	require.NoError(t, err)
	defer b.Close()
	for _, tt := range invalidConfigs {
		bad := tt.give
		if bad.MaxItems == 0 {
			bad.MaxItems = 99
		}
		if bad.MaxInFlight == 0 {
			bad.MaxInFlight = 99
		}
		require.ErrorIs(t, b.SetConfig(bad), batcher.ErrInvalidConfig, tt.name)
		assert.Equal(t, good, b.Config(), tt.name)
	}
}
