package shed_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestSetConfigLowersOverShareWindowAtOnce checks that a SetConfig lowering
// OverShareWindow shortens the over-share marks already made, as
// [shed.Config.OverShareWindow] promises: a tenant shed longer ago than the
// new window is under its share at once, not for the rest of the old
// window, and a tenant shed within it stays over. A raised window extends no
// mark.
func TestSetConfigLowersOverShareWindowAtOnce(t *testing.T) {
	tests := []struct {
		name     string
		window   time.Duration // after SetConfig
		after    time.Duration // since the shed, when A and B arrive
		wantOver bool
	}{
		{"lowered, past the new window", 100 * time.Millisecond, time.Second, false},
		{"lowered, within the new window", 2 * time.Second, time.Second, true},
		{"raised, past the old window", time.Hour, 20 * time.Second, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSched(t, shed.Config{OverShareWindow: 10 * time.Second})
			s.Refuse(t0, "A", 0, shed.ReasonBucketFull) // A is over its share for 10s
			_, _, ok := s.Pop(t0, math.MaxInt64, nil)
			require.False(t, ok)
			require.NoError(t, s.SetConfig(shed.Config{OverShareWindow: tt.window}))

			// A over its share joins the old list, behind B on the fresh
			// one, although A arrived first.
			now := t0.Add(tt.after)
			_, _, err := s.Push(now, "A", 0, 1, req{tenant: "A"})
			require.NoError(t, err)
			_, _, err = s.Push(now, "B", 0, 1, req{tenant: "B"})
			require.NoError(t, err)
			first := map[bool]string{true: "B", false: "A"}[tt.wantOver]
			assert.Equal(t, first, drain(s, now, 2)[0].tenant)
		})
	}
}
