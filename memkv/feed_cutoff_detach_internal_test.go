package memkv

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestFeedCutOffDetaches: a subscriber cut off by overflow gets nothing
// more, so the store drops it from its fan-out at the cut. It stayed in the
// subscriber list until its owner closed it: every later commit locked it
// once per event for nothing, Stats.Subscribers counted it, and its drained
// ring (FeedBuffer events) stayed allocated. A live subscriber beside it
// still gets every event.
func TestFeedCutOffDetaches(t *testing.T) {
	s, err := New(Config{FeedBuffer: 64, CheckpointEvery: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dead, live := s.Subscribe(), s.Subscribe()
	defer dead.Close()
	defer live.Close()
	put := func(k string) {
		t.Helper()
		req := &CommitRequest{ReadVersion: s.ReadVersion(), Sets: [][]byte{[]byte(k), []byte("v")}}
		if _, err := s.Commit(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 65 {
		put(fmt.Sprint("k", i))
		if i < 64 {
			if _, ok, err := live.TryNext(); !ok || err != nil {
				t.Fatalf("live event %d: %v, %v", i, ok, err)
			}
		}
	}
	if got := s.Stats(); got.FeedOverflows != 1 || got.Subscribers != 1 {
		t.Fatalf("after the cut: FeedOverflows %d, Subscribers %d; want 1, 1", got.FeedOverflows, got.Subscribers)
	}
	s.mu.Lock()
	n := len(s.subs)
	s.mu.Unlock()
	if n != 1 {
		t.Fatalf("store fans out to %d subscribers after the cut, want 1", n)
	}
	for i := range 64 {
		e, ok, err := dead.TryNext()
		if err != nil || !ok || string(e.Key) != fmt.Sprint("k", i) {
			t.Fatalf("buffered event %d: %q, %v, %v", i, e.Key, ok, err)
		}
	}
	if _, _, err := dead.TryNext(); !errors.Is(err, ErrOverflow) {
		t.Fatalf("after the buffered events: %v, want ErrOverflow", err)
	}
	dead.mu.Lock()
	ring := len(dead.buf)
	dead.mu.Unlock()
	if ring != 0 {
		t.Fatalf("drained cut-off subscriber holds a ring of %d events, want 0", ring)
	}
	put("after")
	if e, ok, err := live.TryNext(); !ok || err != nil || string(e.Key) != "k64" {
		t.Fatalf("live after the cut: %q, %v, %v", e.Key, ok, err)
	}
	dead.Close()
	if got := s.Stats().Subscribers; got != 1 {
		t.Fatalf("Close of a cut-off subscriber: Subscribers %d, want 1", got)
	}
}
