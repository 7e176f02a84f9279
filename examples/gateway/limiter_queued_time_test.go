package main

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// A request that waited in shed's queue reaches the limiter at the time it
// was admitted, not at the time it arrived: the limiter takes its control
// step at the time it is given, and samples the CPU signal there. Given the
// arrival time of a request that had waited up to queue_deadline (10 s at
// most, the control period is 100 ms), a step paired the CPU used until now
// with a wall-clock period that ended back then, and read a load too high
// (or, at the next step, too low), so the limit moved on readings that were
// wrong; and aimd asks for times that do not go back by more than a period.
func TestQueuedRequestReachesLimiterAtAdmission(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", MinLimit: 8, MaxLimit: 8, QueueDeadline: Duration(10 * time.Second)})
	g, ctx := in.gw, context.Background()
	var mu sync.Mutex
	var sampled []time.Time
	cfg := g.limiter.Config()
	cfg.Period = time.Hour / 2 // shorter than before: the next admission steps
	cfg.Signal = aimd.SignalFunc(func(now time.Time) (float64, error) {
		mu.Lock()
		defer mu.Unlock()
		sampled = append(sampled, now)
		return math.NaN(), nil // no reading: the limit holds
	})
	require.NoError(t, g.limiter.SetConfig(cfg))

	rest, err := g.shedder.Acquire(ctx, "other", 0, 8) // the whole limit
	require.NoError(t, err)
	released := false
	t.Cleanup(func() {
		if !released {
			rest()
		}
	})
	c := client(t, in, nil)
	require.NoError(t, c.Ping(ctx).Err())
	got := make(chan error, 1)
	go func() { got <- c.Set(ctx, "k", "v", 0).Err() }()
	eventuallyWithin(t, 5*time.Second, "the SET queued", func() bool { return bucket(g, "default", 0).Queued == 1 })
	admittedAfter := time.Now()
	released = true
	rest()
	require.NoError(t, <-got)

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, sampled, 1, "the SET's admission took the step")
	require.False(t, sampled[0].Before(admittedAfter), "the step was taken at the SET's arrival, %v before it was admitted", admittedAfter.Sub(sampled[0]))
}
