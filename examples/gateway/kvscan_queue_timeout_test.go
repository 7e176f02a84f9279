package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A KVSCAN's request_timeout bounds its scans, as a GET's bounds its
// backend call, not its wait in shed's queue, which queue_deadline bounds
// (README: refusals answer -OVERLOADED). A scan queued past a
// request_timeout shorter than the queue deadline answered "ERR context
// deadline exceeded", counted in no shed count, where a GET queued as long
// answered -OVERLOADED; and one admitted after its request_timeout passed
// failed the same way instead of running.
func TestKVScanQueueWaitNotCutByRequestTimeout(t *testing.T) {
	const timeout, deadline = 20 * time.Millisecond, 150 * time.Millisecond
	in := startGateway(t, Config{HTTPAddr: "-", MinLimit: 8, MaxLimit: 8,
		RequestTimeout: Duration(timeout), QueueDeadline: Duration(deadline)})
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Set(ctx, "a", "1", 0).Err())

	// Another tenant holds all of the capacity: both are shed at the
	// queue deadline, with the same error, each counted once.
	release, err := g.shedder.Acquire(ctx, "other", 0, 8)
	require.NoError(t, err)
	shed0 := g.n.shed.Load()
	start := time.Now()
	getErr := c.Get(ctx, "a").Err()
	scanErr := c.Do(ctx, "KVSCAN", "a", "b", "LIMIT", "2").Err()
	waited := time.Since(start)
	require.ErrorContains(t, getErr, "OVERLOADED request shed")
	require.ErrorContains(t, scanErr, "OVERLOADED request shed", "KVSCAN as GET")
	require.Equal(t, shed0+2, g.n.shed.Load(), "gateway_shed_total counts both")
	require.GreaterOrEqual(t, waited, 2*deadline-10*time.Millisecond, "each waited out the queue deadline")

	// A scan admitted after its request_timeout has passed in the queue
	// runs, with the whole timeout for its scans.
	res := make(chan []any, 1)
	errc := make(chan error, 1)
	go func() {
		v, err := c.Do(ctx, "KVSCAN", "a", "b").Slice()
		res <- v
		errc <- err
	}()
	eventually(t, "the scan did not queue", func() bool { return g.shedder.Stats().Queued == 1 })
	<-time.After(2 * timeout) // its request_timeout passes while it is queued
	release()
	require.NoError(t, <-errc, "a scan admitted late runs")
	require.Equal(t, []any{"a", "1"}, <-res)
}
