package aimd_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestSetConfigShorterPeriodSteps: Period is "one step per period", and
// every field can be changed at run time. A lazy loop that waits out an hour
// long Period, shortened to 100 ms, steps on the first admission after the
// change and then every 100 ms, not an hour after its last step. No test
// checked it: a SetConfig that kept the old schedule passed the suite.
func TestSetConfigShorterPeriodSteps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sig := &constLoad{}
		sig.set(0.5)
		cfg := aimd.Config{Signal: sig, Period: time.Hour, Initial: 10, MemoryLimit: -1}
		l := newLimiter(t, cfg)
		admit := func() {
			t.Helper()
			done, err := l.TryAcquire()
			require.NoError(t, err)
			done(true)
		}
		admit()
		require.Equal(t, int64(1), l.Stats().Steps, "the first admission steps")
		time.Sleep(time.Minute)
		cfg.Period = 100 * time.Millisecond
		require.NoError(t, l.SetConfig(cfg))
		admit()
		assert.Equal(t, int64(2), l.Stats().Steps, "no step after the Period went from an hour to 100 ms")
		time.Sleep(100 * time.Millisecond)
		admit()
		assert.Equal(t, int64(3), l.Stats().Steps, "no step a new Period later")
	})
}
