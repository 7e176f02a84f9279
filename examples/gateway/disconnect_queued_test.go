package main

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// respCmd encodes args as one RESP command.
func respCmd(args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}

// A client that disconnects while its request waits in shed's queue leaves
// no capacity behind: each kind of admitted request (a single GET, a
// pipelined run, an EXEC, a KVSCAN) queued by a client that then closes its
// connection is admitted or refused once capacity frees up, and gives its
// admission back, so that shed's and the limiter's in-flight counts return
// to zero and every request queued is accounted for once in shed's counts.
// The queue deadline is long, so that the requests leave the queue because
// capacity came back, not because they expired.
func TestDisconnectWhileQueuedReleasesAdmission(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", MinLimit: 8, MaxLimit: 8, QueueDeadline: Duration(10 * time.Second)})
	g, ctx := in.gw, context.Background()
	rest, err := g.shedder.Acquire(ctx, "other", 0, 8) // the whole limit
	require.NoError(t, err)
	released := false
	t.Cleanup(func() {
		if !released {
			rest()
		}
	})
	kinds := []string{
		respCmd("GET", "a"),
		respCmd("GET", "a") + respCmd("GET", "b") + respCmd("SET", "c", "1"),
		respCmd("MULTI") + respCmd("SET", "{t}a", "1") + respCmd("GET", "{t}b") + respCmd("EXEC"),
		respCmd("KVSCAN", "a", "b", "LIMIT", "4"),
	}
	const rounds = 4
	queued := func() int { return bucket(g, "default", 0).Queued }
	for i := range rounds * len(kinds) {
		conn, err := net.Dial("tcp", in.Addr())
		require.NoError(t, err)
		_, err = conn.Write([]byte(kinds[i%len(kinds)]))
		require.NoError(t, err)
		eventuallyWithin(t, 5*time.Second, fmt.Sprint("request ", i, " queued"), func() bool { return queued() == i+1 })
		require.NoError(t, conn.Close()) // the client gives up while queued
	}
	before := bucket(g, "default", 0)
	require.Zero(t, before.Admitted+before.Shed()+before.Canceled, "nothing left the queue while capacity was held")

	released = true
	rest()
	eventuallyWithin(t, 5*time.Second, "the queue drained", func() bool { return queued() == 0 })
	eventuallyWithin(t, 5*time.Second, "shed's cost in flight back to 0", func() bool { return g.shedder.Stats().InFlight == 0 })
	eventuallyWithin(t, 5*time.Second, "the limiter's in flight back to 0", func() bool { return g.limiter.Stats().InFlight == 0 })
	after := bucket(g, "default", 0)
	require.Equal(t, int64(rounds*len(kinds)), after.Admitted+after.Shed()+after.Canceled, "each queued request left the queue once")

	// The capacity is all there: a request of the whole limit is admitted at once.
	full, err := g.shedder.Acquire(ctx, "other", 0, 8)
	require.NoError(t, err)
	full()
}
