package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestInfoShedTotalCountsCommands: INFO's shed_total counted the shedder's
// refusals, one per admission, so a refused pipelined run of 4 GETs counted
// 1 where gateway_shed_total and the same INFO's tenant line count 4 (found
// by a review). It counts commands now.
func TestInfoShedTotalCountsCommands(t *testing.T) {
	in := startGateway(t, Config{Backend: BackendConfig{Shards: 1}, MinLimit: 8, MaxLimit: 8,
		MaxQueue: 1, QueueDeadline: Duration(5 * time.Millisecond)})
	g := in.gw
	bb := &blockingBackend{Backend: g.backend, hold: 0, entered: make(chan struct{}), release: make(chan struct{})}
	g.backend = bb
	ctx := context.Background()
	a := client(t, in, nil)
	done := make(chan error, 1)
	go func() {
		_, err := a.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i := 0; i < 8; i++ {
				p.Get(ctx, fmt.Sprint("a", i))
			}
			return nil
		})
		done <- err
	}()
	<-bb.entered // the run of 8 holds the whole admission capacity (8)

	b := client(t, in, nil)
	cmds, _ := b.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := 0; i < 4; i++ {
			p.Get(ctx, fmt.Sprint("b", i))
		}
		return nil
	})
	shed := 0
	for _, c := range cmds {
		if err := c.Err(); err != nil && err != redis.Nil {
			t.Logf("reply: %v", err)
			shed++
		}
	}
	close(bb.release)
	<-done
	info := client(t, in, nil).Info(ctx).Val()
	var lines []string
	for _, l := range strings.Split(info, "\r\n") {
		if strings.HasPrefix(l, "shed_total") || strings.HasPrefix(l, "tenant_") {
			lines = append(lines, l)
		}
	}
	t.Logf("commands shed: %d; gateway_shed_total (g.n.shed): %d; INFO: %v", shed, g.n.shed.Load(), lines)
	require.Equal(t, 4, shed)
	require.Equal(t, uint64(4), g.n.shed.Load())
	require.Contains(t, info, "shed_total:4\r\n", "INFO shed_total vs gateway_shed_total")
}
