package control_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// Stats read Requests first and the outcomes after it, so a request that
// started and ended in between was counted in an outcome but not in Requests:
// a snapshot showed more outcomes than requests, which the doc rules out ("a
// snapshot taken during one may see it in Requests only"). Requests is read
// last now, so the outcomes never exceed it.
func TestStatsOutcomesNeverExceedRequests(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			_, _ = reg.Apply(control.Request{}) // ErrEmptyRequest: Requests, then Rejected
		}
	})
	defer wg.Wait()
	defer close(stop)
	for range 20000 {
		s := reg.Stats()
		require.LessOrEqual(t, outcomes(s), s.Requests, "outcomes counted a request that Requests did not")
	}
}
