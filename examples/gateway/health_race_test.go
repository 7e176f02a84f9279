package main

import (
	"bytes"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestShardHealthRacingTransitions: batches of one shard failing and
// succeeding at once, each 11 s after the last on a shared clock (so every
// outage may be logged), leave a log whose lines alternate, "unreachable"
// first, and every "answers again" reports a length not below zero nor beyond
// the clock. A success landing between a failure's marking the shard down
// and its recording the outage's start ended the outage with the previous
// outage's start and logged its end twice.
func TestShardHealthRacingTransitions(t *testing.T) {
	var buf syncBuffer
	g := &Gateway{health: make([]shardHealth, 1), log: slog.New(slog.NewJSONHandler(&buf, nil))}
	t0 := time.Unix(1000, 0)
	var tick atomic.Int64
	now := func() time.Time { return t0.Add(time.Duration(tick.Add(1)) * 11 * time.Second) }
	down := errors.New("dial tcp: connection refused")

	const workers, rounds = 4, 3000
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				if (i+w)%2 == 0 {
					g.shardFailed(0, down, now())
				} else {
					g.shardAnswered(0, now)
				}
			}
		}()
	}
	wg.Wait()

	lines := logLines(t, bytes.NewBufferString(buf.String()))
	require.NotEmpty(t, lines)
	end := time.Duration(tick.Load()) * 11 * time.Second
	for i, l := range lines {
		want := "backend shard unreachable: its keys fail until it answers"
		if i%2 == 1 {
			want = "backend shard answers again"
		}
		require.Equal(t, want, l["msg"], "line %d of %d", i, len(lines))
		if i%2 == 1 {
			d := time.Duration(l["down_for"].(float64)) // slog's JSON: ns
			require.True(t, d >= 0 && d <= end, "line %d: down_for %v (clock ran %v)", i, d, end)
		}
	}
}
