package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// logLines decodes the JSON log lines in b.
func logLines(t *testing.T, b *bytes.Buffer) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(b.Bytes()), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal(l, &m), "%s", l)
		lines = append(lines, m)
	}
	return lines
}

// TestShardHealthLogsChanges: a shard's outage is logged once when it starts
// and once when it ends, with its length and the batches it failed, however
// many batches fail meanwhile; a canceled request context is no failure; the
// up gauge and the failure count follow. A flap soon after a warning is not
// logged unless it lasts, and the next warning counts it.
func TestShardHealthLogsChanges(t *testing.T) {
	var buf bytes.Buffer
	g := &Gateway{health: make([]shardHealth, 2), log: slog.New(slog.NewJSONHandler(&buf, nil))}
	t0 := time.Unix(1000, 0)
	clock := func(d time.Duration) func() time.Time { return func() time.Time { return t0.Add(d) } }
	down := errors.New("dial tcp: connection refused")

	steps := []struct {
		name    string
		do      func()
		up      [2]bool
		failed  [2]uint64
		newLogs int
	}{
		{"healthy batches log nothing", func() { g.shardAnswered(0, clock(0)); g.shardAnswered(1, clock(0)) }, [2]bool{true, true}, [2]uint64{0, 0}, 0},
		{"a canceled context is not a failure", func() { g.shardFailed(1, context.Canceled, t0) }, [2]bool{true, true}, [2]uint64{0, 0}, 0},
		{"the first failure starts an outage", func() { g.shardFailed(1, down, t0) }, [2]bool{true, false}, [2]uint64{0, 1}, 1},
		{"more failures log nothing more", func() {
			g.shardFailed(1, down, t0.Add(time.Second))
			g.shardFailed(1, context.DeadlineExceeded, t0.Add(2*time.Second))
		}, [2]bool{true, false}, [2]uint64{0, 3}, 0},
		{"the other shard is not affected", func() { g.shardAnswered(0, clock(3*time.Second)) }, [2]bool{true, false}, [2]uint64{0, 3}, 0},
		{"a success ends the outage", func() { g.shardAnswered(1, clock(2500*time.Millisecond)) }, [2]bool{true, true}, [2]uint64{0, 3}, 1},
		{"and another starts a new one", func() { g.shardFailed(1, down, t0.Add(time.Minute)) }, [2]bool{true, false}, [2]uint64{0, 4}, 1},
		{"which ends", func() { g.shardAnswered(1, clock(61*time.Second)) }, [2]bool{true, true}, [2]uint64{0, 4}, 1},
		{"a flap 2 s after the last warning is not logged", func() { g.shardFailed(1, down, t0.Add(62*time.Second)) }, [2]bool{true, false}, [2]uint64{0, 5}, 0},
		{"nor its end", func() { g.shardAnswered(1, clock(62500*time.Millisecond)) }, [2]bool{true, true}, [2]uint64{0, 5}, 0},
		{"an outage soon after is not logged at first", func() { g.shardFailed(1, down, t0.Add(63*time.Second)) }, [2]bool{true, false}, [2]uint64{0, 6}, 0},
		{"but is once it lasts a second", func() { g.shardFailed(1, down, t0.Add(64500*time.Millisecond)) }, [2]bool{true, false}, [2]uint64{0, 7}, 1},
		{"and so is its end", func() { g.shardAnswered(1, clock(65*time.Second)) }, [2]bool{true, true}, [2]uint64{0, 7}, 1},
	}
	logged := 0
	for _, st := range steps {
		st.do()
		for i := range 2 {
			assert.Equal(t, st.up[i], !g.health[i].down.Load(), "%s: shard %d up", st.name, i)
			assert.Equal(t, st.failed[i], g.health[i].failed.Load(), "%s: shard %d failed", st.name, i)
		}
		lines := logLines(t, &buf)
		assert.Len(t, lines, logged+st.newLogs, st.name)
		logged = len(lines)
	}
	lines := logLines(t, &buf)
	require.Len(t, lines, 6)
	assert.Equal(t, "WARN", lines[0]["level"])
	assert.Equal(t, float64(1), lines[0]["shard"])
	assert.Contains(t, lines[0]["err"], "connection refused")
	assert.Equal(t, float64(0), lines[0]["unlogged_outages"])
	assert.Equal(t, "INFO", lines[1]["level"])
	assert.Equal(t, float64(2500*time.Millisecond), lines[1]["down_for"])
	assert.Equal(t, float64(3), lines[1]["failed_batches"])
	assert.Equal(t, "WARN", lines[2]["level"])
	assert.Equal(t, "INFO", lines[3]["level"])
	assert.Equal(t, "WARN", lines[4]["level"])
	assert.Equal(t, float64(1), lines[4]["unlogged_outages"], "the flap in between")
	assert.Equal(t, "INFO", lines[5]["level"])
	assert.Equal(t, float64(2*time.Second), lines[5]["down_for"])
	assert.Equal(t, float64(2), lines[5]["failed_batches"])
}

// TestFeedLosses: a lost feed is logged once, not on each failed retry; a
// feed that keeps failing right after it subscribes warns at most once per
// healthLogEvery, and the next warning counts the losses in between; its
// return is logged when its loss was.
func TestFeedLosses(t *testing.T) {
	var fl feedLosses
	t0 := time.Unix(1000, 0)
	type step struct {
		name       string
		subscribed bool
		at         time.Duration
		warn       bool
		unlogged   int
		logBack    bool // after the step
	}
	for _, st := range []step{
		{"the first failure, before any subscription", false, 0, true, 0, true},
		{"failed retries", false, time.Second, false, 0, true},
		{"more of them", false, 2 * time.Second, false, 0, true},
		{"lost after subscribing, 20 s after the last warning", true, 22 * time.Second, true, 0, true},
		{"lost again 1 s later", true, 23 * time.Second, false, 0, false},
		{"and again", true, 24 * time.Second, false, 0, false},
		{"a retry fails", false, 25 * time.Second, false, 0, false},
		{"lost after subscribing, 10 s after the last warning", true, 32 * time.Second, true, 2, true},
	} {
		warn, unlogged := fl.failed(st.subscribed, t0.Add(st.at))
		assert.Equal(t, st.warn, warn, st.name)
		assert.Equal(t, st.unlogged, unlogged, st.name)
		assert.Equal(t, st.logBack, fl.logBack(), st.name)
	}
}
