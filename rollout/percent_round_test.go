package rollout_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/rollout"
)

// keyInBucket returns a key whose bucket under service s (default salt) is b.
func keyInBucket(t *testing.T, b uint32) string {
	t.Helper()
	all := mustNew(t, rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}}})
	for i := range 1_000_000 {
		k := fmt.Sprint("k", i)
		if all.Decide(rollout.Query{Service: "s", Key: k}).Bucket == b {
			return k
		}
	}
	t.Fatalf("no key in bucket %d", b)
	return ""
}

// TestPercentRoundsToNearestBasisPoint pins Rule.Percent's "rounded to the
// nearest one, so 0.004 routes no one and 99.995 everyone" at the edge
// buckets: the key in bucket 9999 is routed at 99.995, the key in bucket 0
// is held at 0.004 and routed at 0.005.
func TestPercentRoundsToNearestBasisPoint(t *testing.T) {
	top, bottom := keyInBucket(t, 9999), keyInBucket(t, 0)
	tests := []struct {
		pct  float64
		key  string
		want bool
	}{
		{99.995, top, true},
		{99.994, top, false},
		{0.004, bottom, false},
		{0.005, bottom, true},
	}
	for _, tt := range tests {
		f := mustNew(t, rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: tt.pct}}})
		require.Equal(t, tt.want, f.Use(rollout.Query{Service: "s", Key: tt.key}), "percent %v", tt.pct)
	}
}
