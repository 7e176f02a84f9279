package memkv

import "testing"

// TestSubscriptionCloseReleasesSlot: Close removed the subscription from the
// store's list with an append that left a copy of the last pointer in the
// freed slot of the backing array, so a closed subscription stayed reachable
// until a later Subscribe overwrote it (the detach of a cut-off subscriber
// already cleared its slots). Found by a review.
func TestSubscriptionCloseReleasesSlot(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := s.Subscribe(), s.Subscribe()
	defer a.Close()
	b.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.subs) != 1 || s.subs[0] != a {
		t.Fatalf("subscribers %v, want only a", s.subs)
	}
	if tail := s.subs[:cap(s.subs)][1:]; len(tail) > 0 && tail[0] != nil {
		t.Fatal("the freed slot still holds the closed subscription")
	}
}
