package memkv_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

var ctx = context.Background()

func newStore(t testing.TB, cfg memkv.Config) *memkv.Store {
	t.Helper()
	s, err := memkv.New(cfg)
	require.NoError(t, err)
	return s
}

func b(s string) []byte { return []byte(s) }

func put(t testing.TB, s *memkv.Store, k, v string) uint64 {
	t.Helper()
	ver, err := s.Put(ctx, b(k), b(v))
	require.NoError(t, err)
	return ver
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		give memkv.Config
		want string
	}{
		{"zero", memkv.Config{}, ""},
		{"empty split", memkv.Config{Splits: [][]byte{{}}}, "memkv: Splits must not contain an empty key"},
		{"unordered", memkv.Config{Splits: [][]byte{b("b"), b("a")}}, "memkv: Splits must be strictly increasing (index 1)"},
		{"negative", memkv.Config{FeedBuffer: -1}, "memkv: FeedBuffer -1 is negative"},
		{"delay", memkv.Config{Faults: memkv.Faults{Delay: -1}}, "memkv: Faults.Delay -1ns is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := memkv.New(tt.give)
			if tt.want == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, tt.want+": invalid config")
			}
		})
	}
	s := newStore(t, memkv.Config{})
	assert.Equal(t, 16, s.Stats().Shards)
	assert.EqualError(t, s.SetConfig(memkv.Config{Splits: [][]byte{b("m")}}), "memkv: Splits cannot change after New: invalid config")
	require.NoError(t, s.SetConfig(memkv.Config{FeedBuffer: 7}))
	assert.Equal(t, 7, s.Config().FeedBuffer)
}

func TestMultiVersionReads(t *testing.T) {
	s := newStore(t, memkv.Config{})
	v1 := put(t, s, "k", "one")
	v2 := put(t, s, "k", "two")
	v3, err := s.Delete(ctx, b("k"))
	require.NoError(t, err)
	tests := []struct {
		give   uint64
		want   string
		wantOK bool
	}{{0, "", false}, {v1, "one", true}, {v2, "two", true}, {v3, "", false}}
	for _, tt := range tests {
		got, ok, err := s.Get(ctx, tt.give, b("k"))
		require.NoError(t, err)
		assert.Equal(t, tt.wantOK, ok, "version %d", tt.give)
		assert.Equal(t, tt.want, string(got), "version %d", tt.give)
	}
	_, _, err = s.Get(ctx, v3+1, b("k"))
	assert.ErrorIs(t, err, memkv.ErrFutureVersion)
}

func TestScanAcrossShards(t *testing.T) {
	s := newStore(t, memkv.Config{Splits: [][]byte{b("c"), b("f"), b("k")}})
	keys := []string{"a", "b", "c", "d", "f", "g", "k", "z"}
	for _, k := range keys {
		put(t, s, k, "v"+k)
	}
	rv := s.ReadVersion()
	tests := []struct {
		begin, end string
		limit      int
		reverse    bool
		want       []string
	}{
		{"", "", 0, false, keys},
		{"b", "k", 0, false, []string{"b", "c", "d", "f", "g"}},
		{"b", "k", 3, false, []string{"b", "c", "d"}},
		{"b", "k", 3, true, []string{"g", "f", "d"}},
		{"", "", 0, true, []string{"z", "k", "g", "f", "d", "c", "b", "a"}},
		{"e", "f", 0, false, nil},
		{"k", "c", 0, false, nil},
	}
	for _, tt := range tests {
		var end []byte
		if tt.end != "" {
			end = b(tt.end)
		}
		got, err := s.Scan(ctx, rv, b(tt.begin), end, tt.limit, tt.reverse, nil)
		require.NoError(t, err)
		var gotKeys []string
		for i := 0; i < len(got); i += 2 {
			gotKeys = append(gotKeys, string(got[i]))
			assert.Equal(t, "v"+string(got[i]), string(got[i+1]))
		}
		assert.Equal(t, tt.want, gotKeys, "%+v", tt)
	}
}

func TestValidation(t *testing.T) {
	tests := []struct {
		name  string
		write func(s *memkv.Store) // committed after the read version
		req   memkv.CommitRequest  // ReadVersion is filled in
		want  error
	}{
		{"disjoint key", func(s *memkv.Store) { put(t, s, "x", "1") }, memkv.CommitRequest{ReadKeys: [][]byte{b("y")}}, nil},
		{"same key", func(s *memkv.Store) { put(t, s, "y", "1") }, memkv.CommitRequest{ReadKeys: [][]byte{b("y")}}, memkv.ErrConflict},
		{"deleted key", func(s *memkv.Store) { _, _ = s.Delete(ctx, b("a")) }, memkv.CommitRequest{ReadKeys: [][]byte{b("a")}}, memkv.ErrConflict},
		{"delete of an absent key", func(s *memkv.Store) { _, _ = s.Delete(ctx, b("zz")) }, memkv.CommitRequest{ReadKeys: [][]byte{b("zz")}, ReadRanges: [][]byte{b("z"), nil}}, nil},
		{"insert into empty scan", func(s *memkv.Store) { put(t, s, "m", "1") }, memkv.CommitRequest{ReadRanges: [][]byte{b("l"), b("n")}}, memkv.ErrConflict},
		{"insert after limited scan", func(s *memkv.Store) { put(t, s, "m", "1") }, memkv.CommitRequest{ReadRanges: [][]byte{b("a"), b("b\x00")}}, nil},
		{"clear over read key", func(s *memkv.Store) {
			_, _ = s.Commit(ctx, &memkv.CommitRequest{ReadVersion: s.ReadVersion(), Clears: [][]byte{b("0"), b("9")}})
		}, memkv.CommitRequest{ReadKeys: [][]byte{b("5")}}, memkv.ErrConflict},
		{"write range over read range", func(s *memkv.Store) {
			_, _ = s.Commit(ctx, &memkv.CommitRequest{ReadVersion: s.ReadVersion(), WriteRanges: [][]byte{b("q"), nil}})
		}, memkv.CommitRequest{ReadRanges: [][]byte{b("p"), b("r")}}, memkv.ErrConflict},
		{"write only", func(s *memkv.Store) { put(t, s, "a", "2") }, memkv.CommitRequest{Sets: [][]byte{b("a"), b("3")}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t, memkv.Config{})
			put(t, s, "a", "0")
			put(t, s, "b", "0")
			rv := s.ReadVersion()
			tt.write(s)
			req := tt.req
			req.ReadVersion = rv
			_, err := s.Commit(ctx, &req)
			if tt.want == nil {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, tt.want)
			}
		})
	}
}

func TestConflictErrorNamesReads(t *testing.T) {
	s := newStore(t, memkv.Config{})
	rv := s.ReadVersion()
	put(t, s, "k1", "x")
	put(t, s, "r5", "x")
	_, err := s.Commit(ctx, &memkv.CommitRequest{ReadVersion: rv,
		ReadKeys: [][]byte{b("k0"), b("k1")}, ReadRanges: [][]byte{b("r"), b("s"), b("t"), b("u")}})
	var ce *memkv.ConflictError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, [][]byte{b("k1")}, ce.ConflictKeys())
	assert.Equal(t, [][]byte{b("r"), b("s")}, ce.ConflictRanges())
	assert.Equal(t, rv+2, ce.Version)
	st := s.Stats()
	assert.Equal(t, uint64(1), st.Conflicts)
	assert.Equal(t, uint64(1), st.ConflictKeys)
	assert.Equal(t, uint64(1), st.ConflictRanges)
}

func TestHistoryWindowAndGC(t *testing.T) {
	s := newStore(t, memkv.Config{HistoryVersions: 10, GCStep: -1})
	v1 := put(t, s, "k", "0")
	_, err := s.Delete(ctx, b("gone"))
	require.NoError(t, err)
	put(t, s, "gone2", "x")
	_, err = s.Delete(ctx, b("gone2"))
	require.NoError(t, err)
	for i := range 20 {
		put(t, s, "k", fmt.Sprint(i+1))
	}
	h := s.Horizon()
	require.Equal(t, s.ReadVersion()-10, h)
	_, _, err = s.Get(ctx, v1, b("k"))
	assert.ErrorIs(t, err, memkv.ErrTooOld)
	_, err = s.Scan(ctx, h-1, nil, nil, 0, false, nil)
	assert.ErrorIs(t, err, memkv.ErrTooOld)
	_, err = s.Commit(ctx, &memkv.CommitRequest{ReadVersion: h - 1, ReadKeys: [][]byte{b("k")}})
	assert.ErrorIs(t, err, memkv.ErrTooOld)
	before := s.Stats()
	s.GC()
	after := s.Stats()
	assert.Less(t, after.Versions, before.Versions)
	assert.Equal(t, int64(1), after.Keys, "deleted keys collected")
	assert.Equal(t, int64(11), after.Versions, "10 versions in the window plus the one at the horizon")
	for v := h; v <= s.ReadVersion(); v++ {
		got, ok, err := s.Get(ctx, v, b("k"))
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, fmt.Sprint(v-4), string(got), "version %d", v)
	}
}

func TestIncrementalGCBoundsVersions(t *testing.T) {
	s := newStore(t, memkv.Config{HistoryVersions: 8, Splits: [][]byte{b("k5")}})
	for i := range 2000 {
		put(t, s, fmt.Sprintf("k%d", i%10), "v")
	}
	st := s.Stats()
	assert.LessOrEqual(t, st.Versions, int64(10+2*8*10), "versions stay near keys + window, got %d", st.Versions)
	assert.Positive(t, st.GCFreed)
}

func TestFaults(t *testing.T) {
	var drop bool
	s := newStore(t, memkv.Config{Faults: memkv.Faults{
		FailBeforeCommit: func(r *memkv.CommitRequest) bool { return string(r.Sets[0]) == "fail" },
		DropReply:        func(*memkv.CommitRequest) bool { return drop },
	}})
	_, err := s.Put(ctx, b("fail"), b("x"))
	require.ErrorIs(t, err, memkv.ErrInjected)
	assert.Equal(t, uint64(0), s.ReadVersion(), "nothing applied")
	drop = true
	req := &memkv.CommitRequest{Sets: [][]byte{b("k"), b("v")}, IdempotencyKey: b("id-1")}
	_, err = s.Commit(ctx, req)
	require.ErrorIs(t, err, memkv.ErrCommitUnknown)
	drop = false
	got, ok, err := s.Get(ctx, s.ReadVersion(), b("k"))
	require.NoError(t, err)
	assert.True(t, ok, "applied although the reply was lost")
	assert.Equal(t, "v", string(got))
	v, err := s.Commit(ctx, req)
	require.ErrorIs(t, err, memkv.ErrAlreadyCommitted)
	assert.Equal(t, uint64(1), v)
	st := s.Stats()
	assert.Equal(t, memkv.Stats{Commits: 1, AlreadyCommitted: 1, Injected: 1, DroppedReplies: 1, Reads: 1,
		Version: 1, Keys: 1, Versions: 1, Shards: 16}, st)

	require.NoError(t, s.SetConfig(memkv.Config{MaxCommitBytes: 3}))
	_, err = s.Put(ctx, b("key"), b("value"))
	require.ErrorIs(t, err, memkv.ErrTooLarge)
}

func TestBugSwitches(t *testing.T) {
	tests := []struct {
		name string
		bugs memkv.Bugs
		req  func(rv uint64) memkv.CommitRequest
	}{
		{"keys", memkv.Bugs{IgnoreReadKeys: true}, func(rv uint64) memkv.CommitRequest {
			return memkv.CommitRequest{ReadVersion: rv, ReadKeys: [][]byte{b("k")}}
		}},
		{"ranges", memkv.Bugs{IgnoreReadRanges: true}, func(rv uint64) memkv.CommitRequest {
			return memkv.CommitRequest{ReadVersion: rv, ReadRanges: [][]byte{b("a"), b("z")}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t, memkv.Config{Bugs: tt.bugs})
			rv := s.ReadVersion()
			put(t, s, "k", "v")
			r := tt.req(rv)
			_, err := s.Commit(ctx, &r)
			assert.NoError(t, err, "the bug lets the conflict through")
		})
	}
	s := newStore(t, memkv.Config{HistoryVersions: 1, Bugs: memkv.Bugs{IgnoreTooOld: true}})
	put(t, s, "a", "1")
	put(t, s, "a", "2")
	_, err := s.Commit(ctx, &memkv.CommitRequest{ReadVersion: 0})
	assert.NoError(t, err, "the bug accepts a read version below the horizon")
}

// TestRandomAgainstModel checks reads at every version against a plain map
// history after random puts, deletes and clears.
func TestRandomAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	s := newStore(t, memkv.Config{Splits: [][]byte{b("3"), b("6")}, GCStep: -1})
	models := []map[string]string{{}}
	key := func() []byte { return []byte{byte('0' + r.IntN(10)), byte('a' + r.IntN(3))} }
	for range 400 {
		m := maps.Clone(models[len(models)-1])
		req := &memkv.CommitRequest{ReadVersion: s.ReadVersion()}
		if r.IntN(5) == 0 {
			lo, hi := key(), key()
			if bytes.Compare(lo, hi) > 0 {
				lo, hi = hi, lo
			}
			req.Clears = [][]byte{lo, hi}
			for k := range m {
				if k >= string(lo) && k < string(hi) {
					delete(m, k)
				}
			}
		}
		for range r.IntN(3) {
			k := key()
			if r.IntN(3) == 0 {
				req.Sets = append(req.Sets, k, nil)
				delete(m, string(k))
			} else {
				v := fmt.Sprint(r.IntN(100))
				req.Sets = append(req.Sets, k, b(v))
				m[string(k)] = v
			}
		}
		if len(req.Sets)+len(req.Clears) == 0 {
			continue // a commit without writes creates no version
		}
		_, err := s.Commit(ctx, req)
		require.NoError(t, err)
		models = append(models, m)
	}
	for v, m := range models {
		for _, reverse := range []bool{false, true} {
			got, err := s.Scan(ctx, uint64(v), nil, nil, 0, reverse, nil)
			require.NoError(t, err)
			want := slices.Sorted(maps.Keys(m))
			if reverse {
				slices.Reverse(want)
			}
			gotKeys := []string{}
			for i := 0; i < len(got); i += 2 {
				gotKeys = append(gotKeys, string(got[i]))
				require.Equal(t, m[string(got[i])], string(got[i+1]))
			}
			require.Equal(t, append([]string{}, want...), gotKeys, "version %d", v)
		}
	}
}

// TestGCKeepsRewrittenKeys deletes and rewrites a few keys under a short
// history, with the incremental sweep on and full GCs in between, and checks
// after every commit that each key reads as the model says and that a stale
// read of the written key conflicts. The sweep's cursor can stand on a node
// that GC unlinked; sweeping it again once its key had a new node used to
// unlink the new node too (a committed write lost, and its conflicts with it).
func TestGCKeepsRewrittenKeys(t *testing.T) {
	for _, tc := range []struct {
		history uint64
		step    int
		fullGC  int // a full GC every fullGC commits (0: never)
	}{
		{1, 1, 0}, {1, 1, 3}, {1, 2, 7}, {2, 1, 5}, {4, 2, 7}, {1, 8, 2}, {16, 2, 7},
	} {
		t.Run(fmt.Sprintf("history=%d/step=%d/gc=%d", tc.history, tc.step, tc.fullGC), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(tc.history), uint64(tc.step)))
			s := newStore(t, memkv.Config{HistoryVersions: tc.history, GCStep: tc.step})
			keys := []string{"a", "b", "c", "d"}
			model := map[string]string{}
			for i := range 3000 {
				k := keys[r.IntN(len(keys))]
				rv := s.ReadVersion()
				_, existed := model[k]
				if r.IntN(2) == 0 {
					_, err := s.Delete(ctx, b(k))
					require.NoError(t, err)
					delete(model, k)
				} else {
					v := fmt.Sprint(i)
					put(t, s, k, v)
					model[k] = v
				}
				if _, now := model[k]; now || existed { // the commit wrote k
					_, err := s.Commit(ctx, &memkv.CommitRequest{ReadVersion: rv, ReadKeys: [][]byte{b(k)}})
					require.ErrorIs(t, err, memkv.ErrConflict, "commit %d: stale read of %q", i, k)
				}
				if tc.fullGC > 0 && i%tc.fullGC == 0 {
					s.GC()
				}
				for _, key := range keys {
					got, ok, err := s.Get(ctx, s.ReadVersion(), b(key))
					require.NoError(t, err)
					want, live := model[key]
					require.Equal(t, live, ok, "commit %d: key %q present", i, key)
					require.Equal(t, want, string(got), "commit %d: key %q", i, key)
				}
			}
			// Once the horizon passes every deletion, a full GC leaves the
			// live keys and the one written meanwhile: no key counted twice
			// or lost from the count.
			for range tc.history + 1 {
				put(t, s, "z", "horizon")
			}
			s.GC()
			require.Equal(t, int64(len(model)+1), s.Stats().Keys)
		})
	}
}

// TestConfigSplitsAreCopies: changing the Splits of the Config a store returns
// leaves the store's routing alone.
func TestConfigSplitsAreCopies(t *testing.T) {
	s := newStore(t, memkv.Config{Splits: [][]byte{b("m")}})
	put(t, s, "z", "1")
	c := s.Config()
	c.Splits[0][0] = 'a' // would route "z" elsewhere if shared
	v, ok, err := s.Get(context.Background(), s.ReadVersion(), b("z"))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "1", string(v))
	assert.Equal(t, "m", string(s.Config().Splits[0]))
}

// TestIdempotentRetryOfOldReadVersion: a commit whose reply was lost is
// retried as documented, with the same request and idempotency key. Its
// read version may have fallen behind the horizon meanwhile, while the first
// commit's version (and so its idempotency key) is still in the window: the
// retry must learn that the first attempt committed, not be told to restart.
func TestIdempotentRetryOfOldReadVersion(t *testing.T) {
	var drop bool
	s := newStore(t, memkv.Config{HistoryVersions: 3, Faults: memkv.Faults{
		DropReply: func(*memkv.CommitRequest) bool { return drop },
	}})
	put(t, s, "x", "0")
	rv := s.ReadVersion()
	for i := range 3 {
		put(t, s, fmt.Sprint("other", i), "v")
	}
	req := &memkv.CommitRequest{ReadVersion: rv, ReadKeys: [][]byte{b("x")},
		Sets: [][]byte{b("x"), b("1")}, IdempotencyKey: b("id-1")}
	drop = true
	_, err := s.Commit(ctx, req)
	require.ErrorIs(t, err, memkv.ErrCommitUnknown)
	drop = false
	first := s.ReadVersion()
	put(t, s, "other", "v") // the horizon passes rv, not the first commit
	require.Less(t, rv, s.Horizon())
	require.Less(t, s.Horizon(), first)

	v, err := s.Commit(ctx, req)
	require.ErrorIs(t, err, memkv.ErrAlreadyCommitted)
	assert.Equal(t, first, v)
}

// TestIdempotencyKeyHeldWhileItsVersionIsReadable: the history window holds
// the versions at and above the horizon (Horizon is the oldest readable
// version), and an idempotency key deduplicates a second commit within it.
// The key of the commit at exactly the horizon was dropped one version
// early, so a blind retry there was applied a second time.
func TestIdempotencyKeyHeldWhileItsVersionIsReadable(t *testing.T) {
	var drop bool
	s := newStore(t, memkv.Config{HistoryVersions: 2, Faults: memkv.Faults{
		DropReply: func(*memkv.CommitRequest) bool { return drop },
	}})
	req := &memkv.CommitRequest{Sets: [][]byte{b("n"), b("1")}, IdempotencyKey: b("id-1")} // blind
	drop = true
	_, err := s.Commit(ctx, req)
	require.ErrorIs(t, err, memkv.ErrCommitUnknown)
	drop = false
	first := s.ReadVersion()
	for s.Horizon() < first {
		put(t, s, "other", "v")
	}
	require.Equal(t, first, s.Horizon(), "the first commit's version is the oldest still readable")
	_, _, err = s.Get(ctx, first, b("n"))
	require.NoError(t, err, "and reads at it still work")

	v, err := s.Commit(ctx, req)
	require.ErrorIs(t, err, memkv.ErrAlreadyCommitted)
	assert.Equal(t, first, v)
}

// TestAppendToReturnedSlicesCopies: keys and values returned by reads and the
// feed are shared with the store, but appending to one (append(k, 0) builds
// the key after it, as a paginated range read does) must copy it. Keys used
// to carry spare capacity, so two such appends wrote into the same array.
func TestAppendToReturnedSlicesCopies(t *testing.T) {
	s := newStore(t, memkv.Config{})
	sub := s.Subscribe()
	defer sub.Close()
	put(t, s, "hello", "world")
	got, err := s.Scan(ctx, s.ReadVersion(), nil, nil, 0, false, nil)
	require.NoError(t, err)
	require.Len(t, got, 2)
	e, ok, err := sub.TryNext()
	require.NoError(t, err)
	require.True(t, ok)
	for i, x := range [][]byte{got[0], got[1], e.Key, e.Value} {
		first := append(x, 'a')
		_ = append(x, 'b')
		assert.Equal(t, byte('a'), first[len(first)-1], "slice %d: another append overwrote this one", i)
	}
}
