package shed

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBucketStatsMeanWait pins BucketStats.MeanWait: the total wait over the
// requests admitted after waiting, and zero when none waited.
func TestBucketStatsMeanWait(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	s, err := NewScheduler[int](Config{})
	require.NoError(t, err)
	for i := range 2 {
		_, _, err := s.Push(t0, "a", 0, 1, i)
		require.NoError(t, err)
	}
	for _, d := range []time.Duration{10 * time.Millisecond, 30 * time.Millisecond} {
		_, _, ok := s.Pop(t0.Add(d), math.MaxInt64, nil)
		require.True(t, ok)
	}
	b := s.Tenant(nil, "a")[0]
	assert.Equal(t, int64(2), b.WaitCount)
	assert.Equal(t, 40*time.Millisecond, b.WaitTotal)
	assert.Equal(t, 20*time.Millisecond, b.MeanWait())
	assert.Zero(t, BucketStats{}.MeanWait())
}
