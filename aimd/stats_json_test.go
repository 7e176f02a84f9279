package aimd_test

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestStatsLoadInfiniteEncodes: an infinite sample is a reading (Update cuts
// by Decrease on +Inf), so Stats.Load keeps it, but as the largest finite
// float of its sign: encoding/json cannot encode an infinity, and a Stats that
// fails to encode blinds every JSON dump of it (the control plane's state).
func TestStatsLoadInfiniteEncodes(t *testing.T) {
	for _, tc := range []struct {
		sample, want float64
	}{
		{math.Inf(1), math.MaxFloat64},
		{math.Inf(-1), -math.MaxFloat64},
	} {
		sig := aimd.SignalFunc(func(time.Time) (float64, error) { return tc.sample, nil })
		l, err := aimd.New(aimd.Config{Signal: sig, Manual: true, Initial: 100, Max: 100, MemoryLimit: -1})
		require.NoError(t, err)
		require.NoError(t, l.Tick(time.Unix(100, 0)))
		st := l.Stats()
		assert.Equal(t, tc.want, st.Load, "sample %v", tc.sample)
		_, err = json.Marshal(st)
		assert.NoError(t, err, "sample %v", tc.sample)
	}
}
