package batcher

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// The Done channels of flush contexts are shared by deadline, and each one
// keeps its timer until its deadline (a flush may keep its context). With one
// channel per millisecond, a long FlushTimeout kept one bucket (a map entry,
// a channel and a timer, about 330 bytes) for every millisecond in which a
// batch was dispatched over the whole timeout, long after those flushes had
// returned: with FlushTimeout an hour and steady traffic, 3.6 million buckets
// (over a gigabyte), with a day of timeout several times that. The buckets
// must stay bounded whatever the timeout.
func TestDeadlineBucketsBoundedForLongFlushTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, err := New(Config[int]{MaxItems: 1, FlushTimeout: time.Hour},
			func(context.Context, int, []int, []Result[int]) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		const flushes = 3 * deadlineSlots
		for i := range flushes { // one flush per millisecond, each returned at once
			if _, err := b.Do(context.Background(), i, i); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Millisecond)
		}
		b.deadlines.mu.Lock()
		n := len(b.deadlines.buckets)
		b.deadlines.mu.Unlock()
		if n > deadlineSlots+1 {
			t.Fatalf("%d flushes, one per millisecond, all returned, with FlushTimeout 1h: %d deadline buckets held (want at most %d)",
				flushes, n, deadlineSlots+1)
		}
	})
}

// A kept flush context is still done at its deadline, rounded up by at most
// the bucket width (a millisecond, or FlushTimeout/deadlineSlots when that is
// longer), and never before it.
func TestFlushContextDoneAtRoundedDeadline(t *testing.T) {
	for _, ft := range []time.Duration{5 * time.Second, time.Hour} {
		synctest.Test(t, func(t *testing.T) {
			kept := make(chan context.Context, 1)
			b, err := New(Config[int]{MaxItems: 1, FlushTimeout: ft},
				func(ctx context.Context, _ int, _ []int, _ []Result[int]) error { kept <- ctx; return nil })
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			time.Sleep(1234567 * time.Nanosecond) // an odd dispatch time
			if _, err := b.Do(context.Background(), 0, 0); err != nil {
				t.Fatal(err)
			}
			ctx := <-kept
			dl, _ := ctx.Deadline()
			width := max(time.Millisecond, ft/deadlineSlots)
			time.Sleep(time.Until(dl) - time.Nanosecond)
			synctest.Wait()
			if ctx.Err() != nil {
				t.Fatalf("FlushTimeout %v: flush context done before its deadline", ft)
			}
			time.Sleep(width + time.Nanosecond)
			synctest.Wait()
			select {
			case <-ctx.Done():
			default:
				t.Fatalf("FlushTimeout %v: flush context not done %v after its deadline", ft, width)
			}
			if ctx.Err() != context.DeadlineExceeded {
				t.Fatalf("FlushTimeout %v: Err %v", ft, ctx.Err())
			}
		})
	}
}

// The flush context's Deadline is FlushTimeout after dispatch, and Done must
// close at that deadline rounded up to a bucket, however long Config.Key took
// before the flush func was called: the bucket's timer was armed for the time
// left as of dispatch, counted from the moment it was armed, so every
// millisecond spent in Key (many items, an expensive key) was added to the
// moment Done closed, for this flush and for every later one sharing the
// bucket.
func TestFlushContextDoneAtDeadlineAfterSlowKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const keyTook = 50 * time.Millisecond
		kept := make(chan context.Context, 1)
		b, err := New(Config[int]{
			MaxItems:     2, // Key is not called for a batch of one
			FlushTimeout: 10 * time.Millisecond,
			Key: func(r int) (string, bool) {
				time.Sleep(keyTook) // Key's own work, in virtual time
				return "k", true
			},
		}, func(ctx context.Context, _ int, _ []int, _ []Result[int]) error { kept <- ctx; return nil })
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		p := b.Start(context.Background(), 0, 0)
		if _, err := b.Do(context.Background(), 0, 1); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		ctx := <-kept
		dl, _ := ctx.Deadline()
		time.Sleep(time.Until(dl) + time.Millisecond + time.Nanosecond)
		synctest.Wait()
		select {
		case <-ctx.Done():
		default:
			t.Fatalf("flush context not done a millisecond after its deadline (Key took %v)", keyTook)
		}
	})
}
