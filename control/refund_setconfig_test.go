package control_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// TestRefundAcrossSetConfig: SetConfig does not wait for a change whose Apply
// func is running. When that change then fails, its token is refunded, and
// the budget must be what it would be had the change never been asked for;
// when it succeeds, what it would be had it been charged at its time. The
// refund was one token added to the new budget: over the old Burst, which the
// time before SetConfig is credited up to, or a token a change admitted with
// no Rate had never taken.
func TestRefundAcrossSetConfig(t *testing.T) {
	t1 := t0.Add(time.Second)
	tests := []struct {
		name string
		give control.Config
		sets []control.Config // SetConfigAt(t1) each, while the change applies
		fail bool
		want int // changes applied at t1 after it
	}{
		{"failed, burst raised", control.Config{Rate: 1, Burst: 1},
			[]control.Config{{Rate: 1, Burst: 5}}, true, 1},
		{"failed, taken with no rate", control.Config{},
			[]control.Config{{Rate: 1, Burst: 5}, {Rate: 1, Burst: 1}, {Rate: 1, Burst: 5}}, true, 1},
		{"failed, rate off and on", control.Config{Rate: 1, Burst: 2},
			[]control.Config{{}, {Rate: 1, Burst: 3}}, true, 3},
		{"applied, burst raised", control.Config{Rate: 1, Burst: 1},
			[]control.Config{{Rate: 1, Burst: 5}}, false, 1},
		{"applied, burst cut", control.Config{Rate: 1, Burst: 5},
			[]control.Config{{Rate: 1, Burst: 2}}, false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t, tt.give)
			entered, release := make(chan struct{}), make(chan struct{})
			require.NoError(t, fx.reg.RegisterInt(control.IntKnob{Name: "g", Apply: func(int64) error {
				close(entered)
				<-release
				if tt.fail {
					return errors.New("refused")
				}
				return nil
			}}))
			errc := make(chan error, 1)
			go func() {
				_, err := fx.reg.ApplyAt(t0, one("g", control.Int(1)))
				errc <- err
			}()
			<-entered
			for _, cfg := range tt.sets {
				require.NoError(t, fx.reg.SetConfigAt(t1, cfg))
			}
			close(release)
			err := <-errc
			if tt.fail {
				var ae *control.ApplyError
				require.ErrorAs(t, err, &ae)
			} else {
				require.NoError(t, err)
			}
			var v int64
			assert.Equal(t, tt.want, applied(t, fx, t1, &v))
		})
	}
}
