package hashring_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/tierkit/tierkit/hashring"
)

// TestStatsFiniteWithVanishingShare: a node whose weight is so small next to the
// total that its expected share rounds to 0 owns no slot, exactly its share. Its
// ratio, 0 share over 0 expected, made MaxShareRatio NaN, which no JSON encoder
// accepts and no dashboard can plot.
func TestStatsFiniteWithVanishingShare(t *testing.T) {
	r, err := hashring.New(hashring.Config{Slots: 1 << 8}, []hashring.Node{
		{ID: "a", Weight: 2}, {ID: "b", Weight: 2}, {ID: "dust", Weight: math.SmallestNonzeroFloat64},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Stats()
	if s.MaxShareRatio != 1 {
		t.Errorf("MaxShareRatio = %v, want 1: a and b own half each, dust none", s.MaxShareRatio)
	}
	if _, err := json.Marshal(s); err != nil {
		t.Errorf("Stats do not encode: %v", err)
	}
}
