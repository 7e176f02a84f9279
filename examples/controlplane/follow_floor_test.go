package controlplane_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/examples/controlplane"
)

// TestFollowRefusesTinyPeriod: Follow refused a period <= 0 only, so one of
// a microsecond (a typo for a second, a computed period that rounded down)
// was taken: the ticker's tick is always ready after a fetch, and the
// follower fetched back to back, a core busy between it and the plane for
// nothing (the plane publishes at most once per cadence, itself >= 1 ms). A
// period under controlplane.MinFollowPeriod (1 ms) is refused at once, before any
// fetch. The server here ends the follow after 100 fetches, so that the
// unchanged code fails instead of spinning until the test's timeout.
// Found by a review.
func TestFollowRefusesTinyPeriod(t *testing.T) {
	c, err := client.New(client.Config{Service: "s", Region: "eu"})
	require.NoError(t, err)
	defer c.Close()
	for _, every := range []time.Duration{time.Nanosecond, time.Microsecond, controlplane.MinFollowPeriod - 1} {
		ctx, cancel := context.WithCancel(context.Background())
		var fetches atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			if fetches.Add(1) >= 100 {
				cancel()
			}
			w.WriteHeader(http.StatusNotModified)
		}))
		err := controlplane.Follow(ctx, srv.URL, c, every)
		srv.Close()
		cancel()
		require.Error(t, err, "period %v", every)
		assert.Contains(t, err.Error(), "controlplane: Follow period", "period %v", every)
		assert.Zero(t, fetches.Load(), "period %v: fetches before the refusal", every)
	}
}
