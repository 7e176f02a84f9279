package cache_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// upper is a bulk loader that upper-cases keys and records what it was asked.
func upper(asked *[][]string) func(context.Context, []string) ([]string, error) {
	return func(_ context.Context, keys []string) ([]string, error) {
		*asked = append(*asked, slices.Clone(keys))
		out := make([]string, len(keys))
		for i, k := range keys {
			out[i] = strings.ToUpper(k)
		}
		return out, nil
	}
}

// manyKeys returns the keys k0, k<step>, k<2 step>... below k<n>.
func manyKeys(n, step int) []string {
	var ks []string
	for i := 0; i < n; i += step {
		ks = append(ks, fmt.Sprintf("k%d", i))
	}
	return ks
}

// missing returns the keys not in cached, in order.
func missing(keys, cached []string) []string {
	var out []string
	for _, k := range keys {
		if !slices.Contains(cached, k) {
			out = append(out, k)
		}
	}
	return out
}

// TestGetMany: hits come from memory, the misses go to one load in the order
// of keys (repeats included), and what was loaded is then cached.
func TestGetMany(t *testing.T) {
	tests := []struct {
		name   string
		cached []string
		keys   []string
		asked  [][]string // nil: no load
	}{
		{"all missed", nil, []string{"a", "b", "c"}, [][]string{{"a", "b", "c"}}},
		{"some cached", []string{"b"}, []string{"a", "b", "c"}, [][]string{{"a", "c"}}},
		{"all cached", []string{"a", "b"}, []string{"b", "a"}, nil},
		{"a key twice", nil, []string{"a", "b", "a"}, [][]string{{"a", "b", "a"}}},
		{"no keys", nil, nil, nil},
		// More keys than GetMany looks up ahead at once (16): the second
		// and third batches keep their places.
		{"40 keys, every third cached", manyKeys(40, 3), manyKeys(40, 1), [][]string{missing(manyKeys(40, 1), manyKeys(40, 3))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCache[string, string](t, cache.Config[string]{Capacity: 100})
			for _, k := range tt.cached {
				c.Set(k, strings.ToUpper(k))
			}
			var asked [][]string
			got, err := c.GetMany(context.Background(), tt.keys, upper(&asked))
			require.NoError(t, err)
			want := make([]string, len(tt.keys))
			for i, k := range tt.keys {
				want[i] = strings.ToUpper(k)
			}
			assert.Equal(t, want, got)
			assert.Equal(t, tt.asked, asked)
			s := c.Stats()
			assert.Equal(t, uint64(len(tt.asked)), s.Loads, "one load per call at most")
			assert.Equal(t, uint64(len(tt.keys)), s.Hits+s.Misses, "every key read once")
			for _, k := range tt.keys {
				v, ok := c.TryGet(k)
				assert.True(t, ok, "%s cached after the call", k)
				assert.Equal(t, strings.ToUpper(k), v)
			}
		})
	}
}

// TestGetManyStaleFillLoses: a key invalidated while the load runs is
// returned (it was current when read) but not stored; the others are.
func TestGetManyStaleFillLoses(t *testing.T) {
	c := newCache[string, int](t, cache.Config[string]{Capacity: 10})
	got, err := c.GetMany(context.Background(), []string{"a", "b"}, func(_ context.Context, keys []string) ([]int, error) {
		c.Apply(cache.Event[string, int]{Kind: cache.Write, Key: "b", Version: 2}) // b changes after it was read
		return []int{1, 1}, nil
	})
	require.NoError(t, err)
	assert.Equal(t, []int{1, 1}, got)
	_, ok := c.TryGet("b")
	assert.False(t, ok, "the stale value of b was not stored")
	v, ok := c.TryGet("a")
	assert.True(t, ok)
	assert.Equal(t, 1, v)
	assert.Equal(t, uint64(1), c.Stats().DroppedFills)
}

// TestGetManyLoadErrors: a failed load, or one that answers the wrong number
// of values, fails the call and stores nothing.
func TestGetManyLoadErrors(t *testing.T) {
	boom := errors.New("backend down")
	tests := []struct {
		name string
		load func(context.Context, []string) ([]string, error)
		want string
	}{
		{"error", func(context.Context, []string) ([]string, error) { return nil, boom }, "backend down"},
		{"too few values", func(context.Context, []string) ([]string, error) { return []string{"A"}, nil }, "wrong number of values: 1 values for 2 keys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCache[string, string](t, cache.Config[string]{Capacity: 100})
			got, err := c.GetMany(context.Background(), []string{"a", "b"}, tt.load)
			require.ErrorContains(t, err, tt.want)
			assert.Nil(t, got)
			assert.Equal(t, 0, c.Len(), "nothing stored")
			assert.Equal(t, uint64(1), c.Stats().LoadErrors)
		})
	}
}

// TestGetManyOwnership: keys this host does not own are loaded and returned,
// never stored.
func TestGetManyOwnership(t *testing.T) {
	c := newCache[int, int](t, cache.Config[int]{Capacity: 10, Owns: func(k int) bool { return k%2 == 0 }})
	double := func(_ context.Context, keys []int) ([]int, error) {
		out := make([]int, len(keys))
		for i, k := range keys {
			out[i] = 2 * k
		}
		return out, nil
	}
	for range 2 {
		got, err := c.GetMany(context.Background(), []int{0, 1, 2, 3}, double)
		require.NoError(t, err)
		assert.Equal(t, []int{0, 2, 4, 6}, got)
	}
	assert.Equal(t, 2, c.Len(), "only the owned keys are cached")
	assert.Equal(t, uint64(4), c.Stats().NotOwned)
}

// A multi-key read: the cached key is served from memory, the two others are
// loaded together.
func ExampleCache_GetMany() {
	c, err := cache.New[string, string](cache.Config[string]{Capacity: 100})
	if err != nil {
		panic(err)
	}
	c.Set("user:1", "ada")
	vals, err := c.GetMany(context.Background(), []string{"user:1", "user:2", "user:3"},
		func(_ context.Context, keys []string) ([]string, error) {
			fmt.Println("backend call for", keys)
			return []string{"grace", "edsger"}, nil
		})
	if err != nil {
		panic(err)
	}
	fmt.Println(vals)
	// Output:
	// backend call for [user:2 user:3]
	// [ada grace edsger]
}

// TestGetManyLoadPanics: a panicking load reaches the caller and stores
// nothing (its fills are ended, not left in flight); the next read loads and
// caches as usual.
func TestGetManyLoadPanics(t *testing.T) {
	c := newCache[string, string](t, cache.Config[string]{Capacity: 10})
	require.Panics(t, func() {
		_, _ = c.GetMany(context.Background(), []string{"a"}, func(context.Context, []string) ([]string, error) {
			panic("backend bug")
		})
	})
	assert.Equal(t, 0, c.Len())
	var asked [][]string
	got, err := c.GetMany(context.Background(), []string{"a"}, upper(&asked))
	require.NoError(t, err)
	assert.Equal(t, []string{"A"}, got)
	v, ok := c.TryGet("a")
	assert.True(t, ok)
	assert.Equal(t, "A", v)
}

// TestLookupManyFillMany: the two halves of GetMany. LookupMany serves the
// hits and reports the misses (counted once each, nothing loaded); FillMany
// loads exactly the keys it is given, stores them, and a key written between
// the halves keeps the write (the fill record starts in FillMany, so the load
// that follows reads after the write; a write during the load wins as in
// GetMany).
func TestLookupManyFillMany(t *testing.T) {
	c := newCache[string, string](t, cache.Config[string]{Capacity: 100})
	c.Set("a", "A0")
	keys := []string{"a", "b", "c", "a"}
	out := []string{"stale", "stale", "stale", "stale"} // reused memory: misses are zeroed
	missed := c.LookupMany(keys, out, nil)
	assert.Equal(t, []int{1, 2}, missed)
	assert.Equal(t, []string{"A0", "", "", "A0"}, out)
	st := c.Stats()
	assert.Equal(t, uint64(2), st.Hits)
	assert.Equal(t, uint64(2), st.Misses)
	assert.Zero(t, st.Loads, "LookupMany loads nothing")

	var asked [][]string
	vs, err := c.FillMany(context.Background(), []string{"b", "c"}, upper(&asked))
	require.NoError(t, err)
	assert.Equal(t, []string{"B", "C"}, vs)
	assert.Equal(t, [][]string{{"b", "c"}}, asked)
	st = c.Stats()
	assert.Equal(t, uint64(2), st.Misses, "FillMany counts no second miss")
	assert.Equal(t, uint64(1), st.Loads)

	missed = c.LookupMany(keys, out, missed[:0])
	assert.Empty(t, missed)
	assert.Equal(t, []string{"A0", "B", "C", "A0"}, out)

	// A Set while the load runs: the fill loses, the Set stays.
	_, err = c.FillMany(context.Background(), []string{"d"}, func(_ context.Context, keys []string) ([]string, error) {
		c.Set("d", "D-new")
		return []string{"D-old"}, nil
	})
	require.NoError(t, err)
	v, ok := c.TryGet("d")
	assert.True(t, ok)
	assert.Equal(t, "D-new", v)

	_, err = c.FillMany(context.Background(), []string{"e", "f"}, func(context.Context, []string) ([]string, error) {
		return []string{"E"}, nil
	})
	require.Error(t, err, "a load answering the wrong number of values")
	assert.False(t, c.Contains("e"))
}

// A host that reads keys on several shards looks them all up first, then loads
// only the misses, one bulk call per shard (on its own schedule: here in turn).
func ExampleCache_LookupMany() {
	c, err := cache.New[string, string](cache.Config[string]{Capacity: 100})
	if err != nil {
		panic(err)
	}
	c.Set("user:1", "ada")
	keys := []string{"user:1", "user:2", "user:3"}
	vals := make([]string, len(keys))
	missed := c.LookupMany(keys, vals, nil)
	fmt.Println("missed", missed)
	miss := make([]string, len(missed))
	for j, i := range missed {
		miss[j] = keys[i]
	}
	loaded, err := c.FillMany(context.Background(), miss, func(_ context.Context, keys []string) ([]string, error) {
		fmt.Println("backend call for", keys)
		return []string{"grace", "edsger"}, nil
	})
	if err != nil {
		panic(err)
	}
	for j, i := range missed {
		vals[i] = loaded[j]
	}
	fmt.Println(vals)
	// Output:
	// missed [1 2]
	// backend call for [user:2 user:3]
	// [ada grace edsger]
}
