package control_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// applied applies changes of n at now until the change budget refuses one and
// returns how many were applied; v numbers the values so none is a no-op.
func applied(t *testing.T, fx *fixture, now time.Time, v *int64) int {
	t.Helper()
	for n := 0; ; n++ {
		*v = *v%99 + 1
		_, err := fx.reg.ApplyAt(now, one("n", control.Int(*v)))
		var rl *control.RateLimitError
		if errors.As(err, &rl) {
			return n
		}
		require.NoError(t, err)
		require.Less(t, n, 1000, "the budget never refused")
	}
}

// TestSetConfigCreditsOldRate: the budget earned before a Rate or Burst
// change is credited at the old Rate, up to the old Burst; the new ones apply
// from the change on.
func TestSetConfigCreditsOldRate(t *testing.T) {
	tests := []struct {
		name      string
		give, set control.Config
		setAt     time.Duration // SetConfigAt, after the budget ran out at t0
		at        []time.Duration
		want      []int // changes applied at each of at
	}{
		{"rate cut after 3 s at 1/s", control.Config{Rate: 1, Burst: 5}, control.Config{Rate: 0.01, Burst: 5},
			3 * time.Second, []time.Duration{3 * time.Second, 4 * time.Second, 103 * time.Second}, []int{3, 0, 1}},
		{"rate raised after 3 s at 0.01/s", control.Config{Rate: 0.01, Burst: 5}, control.Config{Rate: 1, Burst: 5},
			3 * time.Second, []time.Duration{3 * time.Second, 4 * time.Second, 6 * time.Second}, []int{0, 1, 2}},
		{"burst raised after 5 s at burst 1", control.Config{Rate: 1, Burst: 1}, control.Config{Rate: 1, Burst: 10},
			5 * time.Second, []time.Duration{5 * time.Second, 8 * time.Second}, []int{1, 3}},
		{"burst cut", control.Config{Rate: 1, Burst: 10}, control.Config{Rate: 1, Burst: 2},
			20 * time.Second, []time.Duration{20 * time.Second}, []int{2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t, tt.give)
			var v int64
			applied(t, fx, t0, &v) // spend the initial burst
			require.NoError(t, fx.reg.SetConfigAt(t0.Add(tt.setAt), tt.set))
			var got []int
			for _, off := range tt.at {
				got = append(got, applied(t, fx, t0.Add(off), &v))
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestSetConfigCreditsOldRateNow: SetConfig, on time.Now, credits the time
// before it at the old rate. The budget ran out 20 s ago at 0.1/s: 2 changes
// earned, up to the burst of 1, before the rate is cut to one per 1000 s.
func TestSetConfigCreditsOldRateNow(t *testing.T) {
	fx := newFixture(t, control.Config{Rate: 0.1, Burst: 1})
	start := time.Now()
	_, err := fx.reg.ApplyAt(start.Add(-20*time.Second), one("n", control.Int(20)))
	require.NoError(t, err)
	require.NoError(t, fx.reg.SetConfig(control.Config{Rate: 0.001, Burst: 1}))
	_, err = fx.reg.ApplyAt(time.Now(), one("n", control.Int(21)))
	assert.NoError(t, err, "the token earned at the old rate before the change")
}
