package memkv_test

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestScanBoundsAgainstModel scans every pair of bounds from a set of edge
// keys (empty, 0x00 and 0xff runs, the splits themselves, begin past end),
// forward and reverse, with limits, and compares with a sorted model.
func TestScanBoundsAgainstModel(t *testing.T) {
	keys := []string{"", "\x00", "a", "a\x00", "a\xff", "a\xff\xff", "b", "b\x00", "\xff", "\xff\xff"}
	for _, splits := range [][][]byte{nil, {b("a\xff")}, {b("\x00"), b("a\xff"), b("b"), b("\xff")}} {
		s := newStore(t, memkv.Config{Splits: splits})
		for _, k := range keys {
			put(t, s, k, "v"+k)
		}
		_, err := s.Delete(ctx, b("b")) // a tombstone inside the ranges
		require.NoError(t, err)
		live := slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return k == "b" })
		bounds := append([][]byte{nil}, func() (out [][]byte) {
			for _, k := range append(keys, "a\xff\x00", "c") {
				out = append(out, b(k))
			}
			return
		}()...)
		rv := s.ReadVersion()
		for _, lo := range bounds {
			for _, hi := range bounds {
				var want []string
				for _, k := range live {
					if bytes.Compare(b(k), lo) >= 0 && (hi == nil || k < string(hi)) {
						want = append(want, k)
					}
				}
				for limit := range 4 {
					for _, rev := range []bool{false, true} {
						w := slices.Clone(want)
						if rev {
							slices.Reverse(w)
						}
						if limit > 0 && len(w) > limit {
							w = w[:limit]
						}
						got, err := s.Scan(ctx, rv, lo, hi, limit, rev, nil)
						require.NoError(t, err)
						var gk []string
						for i := 0; i < len(got); i += 2 {
							gk = append(gk, string(got[i]))
							require.Equal(t, "v"+string(got[i]), string(got[i+1]))
						}
						require.Equal(t, w, gk, fmt.Sprintf("splits %q [%q, %q) limit %d reverse %v", splits, lo, hi, limit, rev))
					}
				}
			}
		}
	}
}
