package memkv_test

import (
	"errors"
	"maps"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// Edge values FuzzConfig draws each numeric field from: the default (0), the
// smallest values that do something, negative and extreme ones.
var (
	fuzzHistories = []uint64{0, 1, 2, 3, 16, math.MaxUint64 - 1, math.MaxUint64}
	fuzzInt64s    = []int64{0, 1, 2, 5, 16, 64, -1, math.MaxInt64, math.MinInt64}
	fuzzInts      = []int{0, 1, 2, 3, 4, 16, -1, math.MaxInt, math.MinInt}
)

// fuzzStoreConfig reads a Config from the first 8 bytes of data (zero bytes
// past its end): up to three Splits (unordered or empty ones included) and
// every numeric field.
func fuzzStoreConfig(data []byte) memkv.Config {
	var p [8]byte
	copy(p[:], data)
	cfg := memkv.Config{
		HistoryVersions: fuzzHistories[int(p[1])%len(fuzzHistories)],
		HistoryBytes:    fuzzInt64s[int(p[2])%len(fuzzInt64s)],
		GCStep:          fuzzInts[int(p[3])%len(fuzzInts)],
		CheckpointEvery: fuzzInts[int(p[4])%len(fuzzInts)],
		FeedBuffer:      fuzzInts[int(p[5])%len(fuzzInts)],
		MaxCommitBytes:  fuzzInts[int(p[6])%len(fuzzInts)],
	}
	if p[0]&0x80 != 0 {
		for i := range int(p[0] & 3) {
			cut := []byte{'a' + (p[7]>>(2*i))&7}
			if p[0]&4 != 0 && i == 0 {
				cut = cut[:0] // an empty cut
			}
			cfg.Splits = append(cfg.Splits, cut)
		}
	}
	return cfg
}

// FuzzConfig: the Config is an operator's to change at runtime (SetConfig),
// so its fields take any value. New and SetConfig either accept a Config or
// return an error wrapping ErrInvalidConfig, and a refused SetConfig keeps
// the Config in force. Under every accepted Config, swapped in halfway
// through a run of puts, deletes and clears, a commit is applied or refused
// with ErrTooLarge exactly as MaxCommitBytes says; the horizon stays within
// the history window; every version from the horizon on reads as a map
// model of it; and a change-feed subscriber that is not cut off (ErrOverflow)
// has, at each checkpoint, seen every write up to it.
func FuzzConfig(f *testing.F) {
	f.Add(make([]byte, 8), make([]byte, 8), []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{0x82, 3, 3, 3, 2, 2, 5, 0x21}, []byte{0, 1, 4, 1, 1, 1, 5, 0}, []byte("\x10\x22\x35\x47\x59\x6a\x7b\x8c\x9d\xae\xbf"))
	f.Add([]byte{0, 6, 7, 8, 7, 8, 8, 0}, []byte{0x81, 5, 6, 6, 6, 6, 7, 0}, []byte{3, 0x81, 0x42, 3, 0x81, 0x42, 0xff, 0xfe})
	f.Fuzz(func(t *testing.T, cfgBytes, cfg2Bytes, ops []byte) {
		cfg, cfg2 := fuzzStoreConfig(cfgBytes), fuzzStoreConfig(cfg2Bytes)
		s, err := memkv.New(cfg)
		if err != nil {
			require.True(t, errors.Is(err, memkv.ErrInvalidConfig), "%v", err)
			s, err = memkv.New(memkv.Config{})
			require.NoError(t, err)
			checkRefused(t, s, cfg)
			return
		}
		ops = ops[:min(len(ops), 64)]
		models := []map[string]string{{}}
		sub := s.Subscribe()
		feed := map[string]string{}
		for i, op := range ops {
			if i == len(ops)/2 {
				if err := s.SetConfig(cfg2); err != nil {
					require.True(t, errors.Is(err, memkv.ErrInvalidConfig), "%v", err)
					checkRefused(t, s, cfg2)
				}
			}
			m, req := fuzzCommit(models[len(models)-1], op)
			size := 0
			for _, b := range append(req.Sets, req.Clears...) {
				size += len(b)
			}
			_, err := s.Commit(ctx, req)
			if size > s.Config().MaxCommitBytes {
				require.ErrorIs(t, err, memkv.ErrTooLarge)
			} else {
				require.NoError(t, err)
				models = append(models, m)
			}
			if op%5 == 0 {
				s.Checkpoint()
			}
			sub, feed = drainFeed(t, s, sub, feed, models)
			checkWindow(t, s)
		}
		for v := s.Horizon(); v <= s.ReadVersion(); v++ {
			got, err := s.Scan(ctx, v, nil, nil, 0, false, nil)
			require.NoError(t, err)
			require.Equal(t, models[v], pairs(got), "version %d", v)
		}
		sub.Close()
	})
}

// fuzzCommit returns the request op encodes (a put, a delete or a clear of
// one-letter keys) and the model m after it.
func fuzzCommit(prev map[string]string, op byte) (map[string]string, *memkv.CommitRequest) {
	m := maps.Clone(prev)
	key := func(x byte) []byte { return []byte{'a' + x%8} }
	k := key(op >> 3)
	req := &memkv.CommitRequest{}
	switch op % 4 {
	case 0, 1:
		req.Sets = [][]byte{k, {op, op}}
		m[string(k)] = string([]byte{op, op})
	case 2:
		req.Sets = [][]byte{k, nil}
		delete(m, string(k))
	default:
		e := key(op >> 5)
		req.Clears = [][]byte{k, e}
		for mk := range m {
			if mk >= string(k) && mk < string(e) {
				delete(m, mk)
			}
		}
	}
	return m, req
}

// checkRefused checks that SetConfig refuses cfg and changes nothing.
func checkRefused(t *testing.T, s *memkv.Store, cfg memkv.Config) {
	before, h := s.Config(), s.Horizon()
	require.ErrorIs(t, s.SetConfig(cfg), memkv.ErrInvalidConfig)
	require.Equal(t, before, s.Config(), "a refused SetConfig changed the Config")
	require.Equal(t, h, s.Horizon(), "a refused SetConfig moved the horizon")
}

// checkWindow checks the horizon against the history window and the gauges.
func checkWindow(t *testing.T, s *memkv.Store) {
	st, v, h := s.Stats(), s.ReadVersion(), s.Horizon()
	require.LessOrEqual(t, h, v)
	if hv := s.Config().HistoryVersions; v > hv {
		require.GreaterOrEqual(t, h, v-hv, "horizon behind the window")
	}
	require.Equal(t, v, st.Version)
	require.Equal(t, h, st.Horizon)
	require.GreaterOrEqual(t, st.Keys, int64(0))
	require.GreaterOrEqual(t, st.Versions, st.Keys)
}

// drainFeed takes every event sub holds, applying writes to feed (the model
// of what the subscriber has seen) and checking it at each checkpoint. A
// subscriber cut off is replaced by a new one.
func drainFeed(t *testing.T, s *memkv.Store, sub *memkv.Subscription, feed map[string]string,
	models []map[string]string) (*memkv.Subscription, map[string]string) {
	for {
		e, ok, err := sub.TryNext()
		if err != nil {
			require.ErrorIs(t, err, memkv.ErrOverflow)
			sub.Close()
			sub = s.Subscribe()
			return sub, maps.Clone(models[sub.Start])
		}
		if !ok {
			return sub, feed
		}
		switch e.Kind {
		case memkv.EventWrite:
			require.Greater(t, e.Version, sub.Start)
			if e.Deleted {
				delete(feed, string(e.Key))
			} else {
				feed[string(e.Key)] = string(e.Value)
			}
		case memkv.EventCheckpoint:
			require.Equal(t, models[e.Version], feed, "checkpoint %d", e.Version)
		default:
			t.Fatalf("event kind %v", e.Kind)
		}
	}
}

// pairs returns the map of a scan's key/value pairs.
func pairs(kv [][]byte) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[string(kv[i])] = string(kv[i+1])
	}
	return m
}
