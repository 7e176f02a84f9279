package batcher_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tierkit/tierkit/batcher"
)

// item is the request type of the tests: a unique id and the group it was sent to.
type item struct {
	ID    int
	Group int
}

var (
	errBatch = errors.New("test: batch failed")
	errItem  = errors.New("test: item failed")
)

// sentBatch is one flush seen by the recorder.
type sentBatch struct {
	Group int
	IDs   []int
	At    time.Time
	Err   error
}

// recorder is a fake backend that records every flush and answers each item
// with 2*ID. failBatch and failItem decide the injected errors; delay, if set,
// is slept (honouring ctx) before answering.
type recorder struct {
	failBatch func(ids []int) bool
	failItem  func(id int) bool
	delay     atomic.Int64 // time.Duration

	inFlightItems atomic.Int64
	maxInFlight   atomic.Int64 // largest inFlightItems seen

	mu      sync.Mutex
	batches []sentBatch
	seen    map[int]int   // id -> times sent
	batchOf map[int]error // id -> error of the batch that carried it
	wrong   []string      // invariant violations seen inside flush
}

func newRecorder() *recorder {
	return &recorder{seen: map[int]int{}, batchOf: map[int]error{}}
}

func (r *recorder) flush(ctx context.Context, g int, reqs []item, out []batcher.Result[int]) error {
	n := r.inFlightItems.Add(int64(len(reqs)))
	defer r.inFlightItems.Add(-int64(len(reqs)))
	for {
		m := r.maxInFlight.Load()
		if n <= m || r.maxInFlight.CompareAndSwap(m, n) {
			break
		}
	}
	if d := time.Duration(r.delay.Load()); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	ids := make([]int, len(reqs))
	for i, q := range reqs {
		ids[i] = q.ID
	}
	var err error
	if r.failBatch != nil && r.failBatch(ids) {
		err = errBatch
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, q := range reqs {
		if q.Group != g {
			r.wrong = append(r.wrong, "item of another group in the batch")
		}
		r.seen[q.ID]++
		r.batchOf[q.ID] = err
		if r.failItem != nil && r.failItem(q.ID) {
			out[i].Err = errItem
		} else {
			out[i].Resp = 2 * q.ID
		}
	}
	r.batches = append(r.batches, sentBatch{Group: g, IDs: ids, At: time.Now(), Err: err})
	return err
}

func (r *recorder) snapshot() []sentBatch {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]sentBatch(nil), r.batches...)
}

// outcome is what one Do returned.
type outcome struct {
	ID   int
	Resp int
	Err  error
}

// checkOutcomes asserts the invariants that hold whatever happened: every item
// sent at most once, every success carries its own answer and was sent, every
// rejection was never sent. It returns the violations.
func checkOutcomes(r *recorder, outs []outcome) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	bad := append([]string(nil), r.wrong...)
	add := func(o outcome, what string) {
		bad = append(bad, what+": "+errString(o.Err)+" for id "+strconv.Itoa(o.ID))
	}
	callers := make(map[int]bool, len(outs))
	for _, o := range outs {
		callers[o.ID] = true
	}
	for id := range r.seen {
		if !callers[id] {
			bad = append(bad, "backend got id "+strconv.Itoa(id)+" that no caller sent")
		}
	}
	for _, o := range outs {
		sent := r.seen[o.ID]
		if sent > 1 {
			add(o, "sent more than once")
		}
		switch {
		case o.Err == nil:
			if sent != 1 || o.Resp != 2*o.ID || r.batchOf[o.ID] != nil {
				add(o, "success not matching the backend")
			}
		case errors.Is(o.Err, errItem):
			if sent != 1 || r.failItem == nil || !r.failItem(o.ID) {
				add(o, "item error for an item the backend did not fail")
			}
		case errors.Is(o.Err, errBatch):
			if sent != 1 || r.batchOf[o.ID] == nil {
				add(o, "batch error for an item not in a failed batch")
			}
		case errors.Is(o.Err, batcher.ErrOverloaded), errors.Is(o.Err, batcher.ErrClosed):
			if sent != 0 {
				add(o, "rejected item was sent")
			}
		case errors.Is(o.Err, context.Canceled), errors.Is(o.Err, context.DeadlineExceeded):
			// Dropped before dispatch (never sent) or left after (sent once).
		default:
			add(o, "unexpected error")
		}
	}
	return bad
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

func slicesSort(s []int) { slices.Sort(s) }
