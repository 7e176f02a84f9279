package memkv

import (
	"context"
	"fmt"
	"testing"
)

// TestFeedRingShrinksAfterBurst: a subscription's ring grows with the events
// it holds, and must give the memory back once the subscriber has caught up.
// It kept the ring of its largest backlog for good: after one burst of writes
// (the ring is cut when the subscriber catches up from a backlog small
// against it, so once it has caught up from the burst and then kept up)
// an idle subscriber held FeedBuffer events (96 MiB at FeedBuffer 1<<20),
// whatever it held since.
func TestFeedRingShrinksAfterBurst(t *testing.T) {
	s, err := New(Config{FeedBuffer: 1 << 14, CheckpointEvery: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	sub := s.Subscribe()
	defer sub.Close()
	ctx := context.Background()
	next := 0
	take := func(n int) {
		t.Helper()
		for range n {
			e, ok, err := sub.TryNext()
			if err != nil || !ok || string(e.Key) != fmt.Sprint("k", next) {
				t.Fatalf("event %d: %q, %v, %v", next, e.Key, ok, err)
			}
			next++
		}
	}
	written := 0
	write := func(n int) {
		t.Helper()
		for range n {
			if _, err := s.Put(ctx, []byte(fmt.Sprint("k", written)), []byte("v")); err != nil {
				t.Fatal(err)
			}
			written++
		}
	}
	for round := range 3 {
		write(10_000) // a burst: the ring grows to hold it
		sub.mu.Lock()
		peak := len(sub.buf)
		sub.mu.Unlock()
		if peak < 10_000 {
			t.Fatalf("round %d: ring of %d events holds a backlog of 10,000", round, peak)
		}
		take(9_990)
		write(5)
		take(15) // caught up after the burst
		write(5) // the subscriber keeps up from here on
		take(5)
		sub.mu.Lock()
		size := len(sub.buf)
		sub.mu.Unlock()
		if size > 64 {
			t.Fatalf("round %d: a caught-up subscriber holds a ring of %d events (peak %d)", round, size, peak)
		}
	}
	if _, ok, err := sub.TryNext(); ok || err != nil {
		t.Fatalf("an event or an error left: %v, %v", ok, err)
	}
}
