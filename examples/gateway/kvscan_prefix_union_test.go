package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestKVScanAdjacentPrefixes: a KVSCAN whose range the tenant's prefixes
// cover together is allowed, as the README states the rule (every key in the
// range must have one of the tenant's prefixes). A tenant confined to
// "log:2024-01" and "log:2024-02" may scan both months at once,
// [log:2024-01, log:2024-03): every key in it has one of the two. The check
// asked one prefix to hold the whole range, so it answered NOPERM. A range
// that reaches a key no prefix allows is still refused, however the prefixes
// chain.
func TestKVScanAdjacentPrefixes(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{
		{Name: "default"},
		{Name: "logs", Password: "p", KeyPrefixes: []string{"log:2024-02", "x", "log:2024-01", "y"}},
	}})
	ctx := context.Background()
	def := client(t, in, nil)
	for _, k := range []string{"log:2024-01a", "log:2024-02b", "log:2024-03c", "xa", "yb", "z"} {
		require.NoError(t, def.Set(ctx, k, k, 0).Err())
	}
	logs := client(t, in, &redis.Options{Username: "logs", Password: "p"})
	for _, tc := range []struct {
		begin, end string
		want       []any
	}{
		{"log:2024-01", "log:2024-03", []any{"log:2024-01a", "log:2024-01a", "log:2024-02b", "log:2024-02b"}},
		{"x", "z", []any{"xa", "xa", "yb", "yb"}},
	} {
		res, err := logs.Do(ctx, "KVSCAN", tc.begin, tc.end).Slice()
		require.NoError(t, err, "KVSCAN %q %q", tc.begin, tc.end)
		require.Equal(t, tc.want, res, "KVSCAN %q %q", tc.begin, tc.end)
	}
	for _, r := range [][2]string{
		{"x", "z\x00"}, {"x", ""}, {"log:2024-01", "log:2024-03\x00"}, {"log:2024-01", "x"}, {"w", "y"},
	} {
		require.ErrorContains(t, logs.Do(ctx, "KVSCAN", r[0], r[1]).Err(), "NOPERM", "KVSCAN %q %q", r[0], r[1])
	}
}

// rangeCovered over prefix sets, against a check of every key of a small
// alphabet: a range is covered exactly when every key in it has a prefix.
// The keys take a byte below the prefixes' letters and one above them, and
// the prefixes are at most 2 bytes, so keys of up to 3 bytes tell every case
// of bounds of up to 2.
func TestRangeCoveredByPrefixes(t *testing.T) {
	var keys, bounds []string
	var grow func(s string, n int)
	grow = func(s string, n int) {
		keys = append(keys, s)
		if len(s) <= 2 {
			bounds = append(bounds, s)
		}
		if n == 0 {
			return
		}
		for _, c := range []string{"\x00", "a", "b", "c", "d"} {
			grow(s+c, n-1)
		}
	}
	grow("", 3)
	sets := [][]string{{"a"}, {"a", "b"}, {"ab", "ac", "b"}, {"aa", "c"}, {""}, {"ab", "a"}, {"ba", "bb", "bc"}, {"c", "d"}, {"b", "c", "d"}}
	for _, ps := range sets {
		for _, begin := range bounds {
			for _, end := range bounds { // end "" is no upper bound
				if end != "" && end <= begin {
					continue
				}
				want := end != "" || hasAnyPrefix("e", ps) // "e": the keys past the alphabet
				for _, k := range keys {
					if k >= begin && (end == "" || k < end) && !hasAnyPrefix(k, ps) {
						want = false
					}
				}
				require.Equal(t, want, rangeCovered(begin, end, ps), "%q: [%q, %q)", ps, begin, end)
			}
		}
	}
}

func hasAnyPrefix(k string, ps []string) bool {
	for _, p := range ps {
		if len(k) >= len(p) && k[:len(p)] == p {
			return true
		}
	}
	return false
}
