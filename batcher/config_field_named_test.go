package batcher_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
)

// TestConfigErrorsNameFieldAndValue: a bad Config field was refused with a
// message that named the field but not its value ("MaxItems is negative"),
// so an operator who computed it could not see what it came to; and a nil
// flush func got a plain error that errors.Is could not tell from a
// failure. Both name what is wrong now and wrap ErrInvalidConfig, as txn
// does for a nil Engine. Found by a review.
func TestConfigErrorsNameFieldAndValue(t *testing.T) {
	b, err := batcher.New(batcher.Config[int]{}, nopFlush)
	require.NoError(t, err)
	defer b.Close()
	for _, tt := range []struct {
		give batcher.Config[int]
		want string
	}{
		{batcher.Config[int]{MaxItems: -2}, "batcher: MaxItems -2 is negative: invalid config"},
		{batcher.Config[int]{MaxBytes: -3}, "batcher: MaxBytes -3 is negative: invalid config"},
		{batcher.Config[int]{MaxBytes: 64}, "batcher: MaxBytes 64 needs a Size func: invalid config"},
		{batcher.Config[int]{Linger: -time.Millisecond}, "batcher: Linger -1ms is negative: invalid config"},
		{batcher.Config[int]{FlushTimeout: -time.Second}, "batcher: FlushTimeout -1s is negative: invalid config"},
		{batcher.Config[int]{MaxInFlight: -4}, "batcher: MaxInFlight -4 is negative: invalid config"},
		{batcher.Config[int]{IdleTTL: -5}, "batcher: IdleTTL -5ns is negative: invalid config"},
	} {
		_, err := batcher.New(tt.give, nopFlush)
		require.ErrorIs(t, err, batcher.ErrInvalidConfig)
		assert.EqualError(t, err, tt.want, "New")
		err = b.SetConfig(tt.give)
		require.ErrorIs(t, err, batcher.ErrInvalidConfig)
		assert.EqualError(t, err, tt.want, "SetConfig")
	}

	nb, err := batcher.New[int, int, int](batcher.Config[int]{}, nil)
	require.ErrorIs(t, err, batcher.ErrInvalidConfig)
	assert.EqualError(t, err, "batcher: nil flush func: invalid config")
	assert.Nil(t, nb)
}
