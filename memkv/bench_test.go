package memkv_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/tierkit/tierkit/memkv"
)

const benchKeys = 1 << 14

func benchStore(b *testing.B) (*memkv.Store, [][]byte) {
	s, err := memkv.New(memkv.Config{})
	if err != nil {
		b.Fatal(err)
	}
	keys := make([][]byte, benchKeys)
	req := &memkv.CommitRequest{}
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("key%08d", i*7919%benchKeys))
		req.Sets = append(req.Sets, keys[i], []byte("value-0123456789"))
	}
	if _, err := s.Commit(ctx, req); err != nil {
		b.Fatal(err)
	}
	return s, keys
}

var sink []byte

// BenchmarkGet: parallel point reads at the current version.
func BenchmarkGet(b *testing.B) {
	s, keys := benchStore(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			v, _, _ := s.Get(ctx, s.ReadVersion(), keys[i%benchKeys])
			sink = v
			i++
		}
	})
}

// BenchmarkGetNaive is the baseline: a map under a RWMutex, one version.
func BenchmarkGetNaive(b *testing.B) {
	var mu sync.RWMutex
	m := map[string][]byte{}
	_, keys := benchStore(b)
	for _, k := range keys {
		m[string(k)] = []byte("value-0123456789")
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			mu.RLock()
			sink = m[string(keys[i%benchKeys])]
			mu.RUnlock()
			i++
		}
	})
}

// BenchmarkScan100: ordered range reads of 100 keys.
func BenchmarkScan100(b *testing.B) {
	s, keys := benchStore(b)
	var dst [][]byte
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		dst, _ = s.Scan(ctx, s.ReadVersion(), keys[i%benchKeys], nil, 100, i%2 == 0, dst[:0])
		i++
	}
	b.ReportMetric(float64(len(dst)/2), "keys/scan")
}

// BenchmarkCommit2R2W validates and applies transactions of 2 reads and 2
// writes on one goroutine: the engine-validation throughput target.
func BenchmarkCommit2R2W(b *testing.B) {
	s, keys := benchStore(b)
	val := []byte("value-0123456789")
	req := &memkv.CommitRequest{ReadKeys: make([][]byte, 2), Sets: make([][]byte, 4)}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		req.ReadVersion = s.ReadVersion()
		req.ReadKeys[0], req.ReadKeys[1] = keys[i%benchKeys], keys[(i+1)%benchKeys]
		req.Sets[0], req.Sets[1] = keys[(i+2)%benchKeys], val
		req.Sets[2], req.Sets[3] = keys[(i+3)%benchKeys], val
		if _, err := s.Commit(ctx, req); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "txns/s")
}

// BenchmarkPutHot writes hot keys, as counters or session keys are written:
// 16 of them alone, or among benchKeys others. Each hot key holds a version
// per write inside the history window (the gateway keeps 2^16 versions). The
// incremental GC sweeps GCStep keys per commit; a sweep that walked a hot
// key's chain from its head read every version in the window each time it
// reached the key, which among few keys is on nearly every commit.
func BenchmarkPutHot(b *testing.B) {
	const hot = 16
	for _, others := range []bool{false, true} {
		b.Run(fmt.Sprintf("others=%v", others), func(b *testing.B) {
			var s *memkv.Store
			var keys [][]byte
			if others {
				s, keys = benchStore(b)
			} else {
				var err error
				if s, err = memkv.New(memkv.Config{}); err != nil {
					b.Fatal(err)
				}
				for i := range hot {
					keys = append(keys, []byte(fmt.Sprintf("key%08d", i)))
				}
			}
			if err := s.SetConfig(memkv.Config{HistoryVersions: 1 << 16}); err != nil {
				b.Fatal(err)
			}
			val := []byte("value-0123456789")
			// Fill the window first, so that every measured write finds
			// the hot keys' chains as long as they get.
			for i := range 1 << 16 {
				if _, err := s.Put(ctx, keys[i%hot], val); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := s.Put(ctx, keys[i%hot], val); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkCommitLogged commits one write per commit with what the store
// must remember for the whole history window: an idempotency key (txn.Run's
// retries after ErrCommitUnknown send one), or a range clear (validated
// against later range reads). Once the window is full, each commit drops the
// oldest entry; dropping it by copying the rest made a commit cost the
// window's length.
func BenchmarkCommitLogged(b *testing.B) {
	for _, what := range []string{"idempotency", "clear"} {
		b.Run(what, func(b *testing.B) {
			s, keys := benchStore(b)
			if err := s.SetConfig(memkv.Config{HistoryVersions: 1 << 16}); err != nil {
				b.Fatal(err)
			}
			val := []byte("value-0123456789")
			i := 0
			commit := func() {
				req := &memkv.CommitRequest{Sets: [][]byte{keys[i%benchKeys], val}}
				if what == "idempotency" {
					req.IdempotencyKey = fmt.Appendf(nil, "idem-%d", i)
				} else {
					k := keys[(i+1)%benchKeys]
					req.Clears = [][]byte{k, append(k[:len(k):len(k)], 0)}
				}
				if _, err := s.Commit(ctx, req); err != nil {
					b.Fatal(err)
				}
				i++
			}
			for range 1 << 16 { // fill the window
				commit()
			}
			b.ReportAllocs()
			for b.Loop() {
				commit()
			}
		})
	}
}
