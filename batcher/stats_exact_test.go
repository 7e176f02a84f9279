package batcher_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
)

// exactEnv runs the calls of a TestStatsExact row, each on a goroutine of
// its own, against a backend that takes exactLat (virtual time) per call.
type exactEnv struct {
	b  *batcher.Batcher[int, item, int]
	wg sync.WaitGroup
}

// do runs Do and lets it run until every goroutine of the bubble blocks.
func (e *exactEnv) do(ctx context.Context, g, id int) {
	e.wg.Go(func() { _, _ = e.b.Do(ctx, g, item{ID: id, Group: g}) })
	synctest.Wait()
}

// exactLat is how long every flush call of TestStatsExact takes.
const exactLat = 3 * time.Millisecond

// exactRow is a row of TestStatsExact: drive runs against a fresh batcher,
// whose Stats must then be want, every field.
type exactRow struct {
	name  string
	cfg   batcher.Config[item]
	fail  bool // the flush returns an error
	drive func(t *testing.T, e *exactEnv)
	want  batcher.Stats
}

var exactLinger = batcher.Config[item]{MaxItems: 4, Linger: time.Millisecond}

// flushedRows are the items flushed, and those cancelled.
func flushedRows() []exactRow {
	const lat = exactLat
	return []exactRow{
		{
			name: "flushed by size",
			cfg:  batcher.Config[item]{MaxItems: 2, Linger: time.Hour},
			drive: func(t *testing.T, e *exactEnv) {
				e.do(t.Context(), 0, 1)
				e.do(t.Context(), 0, 2)
			},
			want: batcher.Stats{Items: 2, Sent: 2, Batches: 1, MeanFill: 1,
				FlushLatencySum: lat, FlushLatencyMax: lat, LiveGroups: 1},
		},
		{
			name:  "flushed by linger",
			cfg:   exactLinger,
			drive: func(t *testing.T, e *exactEnv) { e.do(t.Context(), 0, 1) },
			want: batcher.Stats{Items: 1, Sent: 1, Batches: 1, MeanFill: 0.25,
				FlushLatencySum: lat, FlushLatencyMax: lat, LiveGroups: 1},
		},
		{
			name: "flushed under FlushNatural: at once, then what gathered",
			cfg:  batcher.Config[item]{MaxItems: 4, Linger: time.Hour, Policy: batcher.FlushNatural},
			drive: func(t *testing.T, e *exactEnv) {
				e.do(t.Context(), 0, 1) // goes at once
				e.do(t.Context(), 0, 2) // gather behind it
				e.do(t.Context(), 0, 3)
			},
			want: batcher.Stats{Items: 3, Sent: 3, Batches: 2, MeanFill: (0.25 + 0.5) / 2,
				FlushLatencySum: 2 * lat, FlushLatencyMax: lat, LiveGroups: 1},
		},
		{
			name: "cancelled on entry",
			cfg:  exactLinger,
			drive: func(t *testing.T, e *exactEnv) {
				ctx, cancel := context.WithCancel(t.Context())
				cancel()
				e.do(ctx, 0, 1)
			},
			want: batcher.Stats{Cancelled: 1},
		},
		{
			name: "cancelled before dispatch: its batch dropped",
			cfg:  exactLinger,
			drive: func(t *testing.T, e *exactEnv) {
				ctx, cancel := context.WithCancel(t.Context())
				e.do(ctx, 0, 1)
				cancel()
			},
			want: batcher.Stats{Cancelled: 1, LiveGroups: 1},
		},
		{
			name: "cancelled after dispatch: still sent",
			cfg:  batcher.Config[item]{MaxItems: 1, Linger: time.Hour},
			drive: func(t *testing.T, e *exactEnv) {
				ctx, cancel := context.WithTimeout(t.Context(), lat/2)
				defer cancel()
				e.do(ctx, 0, 1) // leaves at lat/2
				time.Sleep(lat) // the flush returns
			},
			want: batcher.Stats{Items: 1, Sent: 1, Batches: 1, MeanFill: 1,
				FlushLatencySum: lat, FlushLatencyMax: lat, LiveGroups: 1},
		},
	}
}

// otherRows are the items rejected, de-duplicated or failed, an idle group
// evicted, and the gauges while a flush is in flight.
func otherRows() []exactRow {
	const lat = exactLat
	return []exactRow{
		{
			name: "rejected at admission",
			cfg:  batcher.Config[item]{MaxItems: 1, Linger: time.Hour, MaxInFlight: 1},
			drive: func(t *testing.T, e *exactEnv) {
				e.do(t.Context(), 0, 1) // in the backend, at the cap
				e.do(t.Context(), 1, 2) // ErrOverloaded
			},
			want: batcher.Stats{Items: 1, Sent: 1, Batches: 1, Rejected: 1, MeanFill: 1,
				FlushLatencySum: lat, FlushLatencyMax: lat, LiveGroups: 1},
		},
		{
			name: "de-duplicated",
			cfg: batcher.Config[item]{MaxItems: 2, Linger: time.Hour,
				Key: func(item) (string, bool) { return "same", true }},
			drive: func(t *testing.T, e *exactEnv) {
				e.do(t.Context(), 0, 1)
				e.do(t.Context(), 0, 2)
			},
			want: batcher.Stats{Items: 2, Sent: 1, Deduped: 1, Batches: 1, MeanFill: 1,
				FlushLatencySum: lat, FlushLatencyMax: lat, LiveGroups: 1},
		},
		{
			name: "flush fails",
			cfg:  batcher.Config[item]{MaxItems: 1, Linger: time.Hour},
			fail: true,
			drive: func(t *testing.T, e *exactEnv) {
				e.do(t.Context(), 0, 1)
			},
			want: batcher.Stats{Items: 1, Sent: 1, Batches: 1, FlushErrors: 1, MeanFill: 1,
				FlushLatencySum: lat, FlushLatencyMax: lat, LiveGroups: 1},
		},
		{
			name: "idle group evicted",
			cfg:  batcher.Config[item]{MaxItems: 1, Linger: time.Hour, IdleTTL: time.Second},
			drive: func(t *testing.T, e *exactEnv) {
				e.do(t.Context(), 0, 1)
				e.wg.Wait()
				time.Sleep(time.Second)
				require.Equal(t, 1, e.b.EvictIdle())
			},
			want: batcher.Stats{Items: 1, Sent: 1, Batches: 1, MeanFill: 1, EvictedGroups: 1,
				FlushLatencySum: lat, FlushLatencyMax: lat},
		},
		{
			name: "gauges while a flush is in flight",
			cfg:  batcher.Config[item]{MaxItems: 2, Linger: time.Hour},
			drive: func(t *testing.T, e *exactEnv) {
				e.do(t.Context(), 0, 1)
				e.do(t.Context(), 0, 2) // full: in the backend for lat
				e.do(t.Context(), 0, 3) // pending in the next batch
				e.do(t.Context(), 1, 4) // pending in another group
				want := batcher.Stats{LiveGroups: 2, PendingItems: 2, InFlightBatches: 1, InFlightItems: 2}
				assert.Equal(t, want, e.b.Stats(), "in flight")
				e.do(t.Context(), 0, 5) // closes the batch of 3 and 5
				e.do(t.Context(), 1, 6) // and of 4 and 6
			},
			want: batcher.Stats{Items: 6, Sent: 6, Batches: 3, MeanFill: 1,
				FlushLatencySum: 3 * lat, FlushLatencyMax: lat, LiveGroups: 2},
		},
	}
}

// TestStatsExact pins every Stats field, the mean fill, the flush latency
// and the gauges included, after each way an item can go: flushed (by size,
// by linger, under FlushNatural), cancelled (on entry, before dispatch,
// after it), rejected (at admission), de-duplicated, in a failed flush, and
// a group evicted when idle; and the gauges while a flush is in flight.
func TestStatsExact(t *testing.T) {
	for _, tt := range append(flushedRows(), otherRows()...) {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b, err := batcher.New(tt.cfg, func(_ context.Context, _ int, reqs []item, out []batcher.Result[int]) error {
					time.Sleep(exactLat)
					for i, q := range reqs {
						out[i].Resp = q.ID
					}
					if tt.fail {
						return errors.New("test: flush failed " + strconv.Itoa(len(reqs)))
					}
					return nil
				})
				require.NoError(t, err)
				e := &exactEnv{b: b}
				tt.drive(t, e)
				e.wg.Wait()
				synctest.Wait() // flush goroutines and timers done
				assert.Equal(t, tt.want, b.Stats())
				require.NoError(t, b.Close())
			})
		})
	}
}
