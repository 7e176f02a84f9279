package control_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// A change stamped long before the knob's last one (beyond the ~292 years a
// Duration holds, such as a fake clock started at the zero time.Time, which
// ApplyAt refuses itself) is refused by
// the MinInterval like one stamped a little before it: the saturated
// difference overflowed the wait to a negative one and let it through.
func TestMinIntervalFarBackInTime(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	var got int64
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "x", MinInterval: time.Minute,
		Apply: func(v int64) error { got = v; return nil }}))
	_, err = reg.ApplyAt(t0, one("x", control.Int(1)))
	require.NoError(t, err)

	for _, at := range []time.Time{t0.Add(-time.Hour), time.Time{}.Add(time.Nanosecond)} {
		_, err = reg.ApplyAt(at, one("x", control.Int(2)))
		var rl *control.RateLimitError
		require.ErrorAs(t, err, &rl, "at %v", at)
		assert.Positive(t, rl.RetryAfter)
		assert.Equal(t, int64(1), got)
	}
}
