package memkv_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestConfigErrorNamesTheField: a negative CheckpointEvery, FeedBuffer or
// MaxCommitBytes was refused with one message naming all three and no
// value, so a caller that set all of them could not tell which was wrong.
// Each is named alone now, with its value. Found by a review.
func TestConfigErrorNamesTheField(t *testing.T) {
	s, err := memkv.New(memkv.Config{})
	require.NoError(t, err)
	for _, tt := range []struct {
		give memkv.Config
		want string
	}{
		{memkv.Config{CheckpointEvery: -2, FeedBuffer: 8, MaxCommitBytes: 8}, "memkv: CheckpointEvery -2 is negative: invalid config"},
		{memkv.Config{CheckpointEvery: 8, FeedBuffer: -3, MaxCommitBytes: 8}, "memkv: FeedBuffer -3 is negative: invalid config"},
		{memkv.Config{CheckpointEvery: 8, FeedBuffer: 8, MaxCommitBytes: -4}, "memkv: MaxCommitBytes -4 is negative: invalid config"},
		{memkv.Config{HistoryBytes: -5}, "memkv: HistoryBytes -5 is negative: invalid config"},
		{memkv.Config{Faults: memkv.Faults{Delay: -6}}, "memkv: Faults.Delay -6ns is negative: invalid config"},
	} {
		_, err := memkv.New(tt.give)
		require.ErrorIs(t, err, memkv.ErrInvalidConfig)
		assert.EqualError(t, err, tt.want, "New")
		err = s.SetConfig(tt.give)
		require.ErrorIs(t, err, memkv.ErrInvalidConfig)
		assert.EqualError(t, err, tt.want, "SetConfig")
	}
}
