package memkv

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// histBytesOf is what a commit counts against Config.HistoryBytes.
func histBytesOf(req *CommitRequest) int64 {
	n := int64(0)
	for _, r := range [][][]byte{req.Sets, req.Clears, req.WriteRanges} {
		for _, b := range r {
			n += int64(len(b))
		}
	}
	return n
}

// TestHistoryBytesAgainstModel runs random commits (sets, deletions of
// present and absent keys, a key set twice, clears, write ranges) with the
// window bounded by bytes, changing HistoryBytes and HistoryVersions on the
// way (lowered, raised, lifted), and checks after every commit: every
// version the window promises reads as a map model of it, a read at such a
// version validates (conflicts) exactly when a later commit wrote the key,
// the commits after the horizon wrote at most HistoryBytes, histLog lists
// them, and the chains and counters agree.
func TestHistoryBytesAgainstModel(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(4) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 26))
			cfg := Config{Splits: [][]byte{[]byte("k07"), []byte("k14")}, HistoryVersions: 64, HistoryBytes: 40, GCStep: 1 + rng.IntN(3)}
			s, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			type commit struct {
				m      map[string]string // the keys and values at this version
				keys   map[string]bool   // the keys it wrote
				ranges [][]byte          // its clears and write ranges
				bytes  int64
			}
			hist := []commit{{m: map[string]string{}}}
			bounded := uint64(0) // the bound in force was set at this version
			for i := range 1200 {
				if i%150 == 149 {
					cfg.HistoryBytes = []int64{0, 12, 40, 300}[rng.IntN(4)]
					cfg.HistoryVersions = 4 + rng.Uint64N(64)
					if err := s.SetConfig(cfg); err != nil {
						t.Fatal(err)
					}
					bounded = s.ReadVersion()
				}
				req := randomCommit(rng, i)
				req.ReadVersion = s.ReadVersion()
				c := commit{m: maps.Clone(hist[len(hist)-1].m), keys: map[string]bool{}, bytes: histBytesOf(req)}
				for j := 0; j+1 < len(req.Clears); j += 2 {
					b, e := string(req.Clears[j]), string(req.Clears[j+1])
					for k := range c.m {
						if k >= b && k < e {
							delete(c.m, k)
						}
					}
					c.ranges = append(c.ranges, req.Clears[j], req.Clears[j+1])
				}
				c.ranges = append(c.ranges, req.WriteRanges...)
				for j := 0; j+1 < len(req.Sets); j += 2 {
					k, v := string(req.Sets[j]), req.Sets[j+1]
					if _, ok := c.m[k]; v == nil && !ok {
						continue
					}
					c.keys[k] = true
					if v == nil {
						delete(c.m, k)
					} else {
						c.m[k] = string(v)
					}
				}
				v, err := s.Commit(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				if v != uint64(len(hist)) {
					continue // no writes: no version
				}
				hist = append(hist, c)
				h := s.Horizon()
				for rv := h; rv <= v; rv++ {
					got, err := s.Scan(ctx, rv, nil, nil, 0, false, nil)
					if err != nil {
						t.Fatalf("commit %d: scan at %d (horizon %d): %v", i, rv, h, err)
					}
					want := slices.Sorted(maps.Keys(hist[rv].m))
					var gotKeys []string
					for j := 0; j+1 < len(got); j += 2 {
						gotKeys = append(gotKeys, string(got[j]))
						if hist[rv].m[string(got[j])] != string(got[j+1]) {
							t.Fatalf("commit %d: version %d key %s = %q, want %q", i, rv, got[j], got[j+1], hist[rv].m[string(got[j])])
						}
					}
					if !slices.Equal(want, gotKeys) {
						t.Fatalf("commit %d: version %d keys %v, want %v", i, rv, gotKeys, want)
					}
					k := fmt.Appendf(nil, "k%02d", rng.IntN(20))
					wrote := false
					for _, c := range hist[rv+1:] {
						wrote = wrote || c.keys[string(k)]
						for j := 0; j+1 < len(c.ranges); j += 2 {
							wrote = wrote || (string(k) >= string(c.ranges[j]) && (c.ranges[j+1] == nil || string(k) < string(c.ranges[j+1])))
						}
					}
					_, err = s.Commit(ctx, &CommitRequest{ReadVersion: rv, ReadKeys: [][]byte{k}})
					if conflict := errors.Is(err, ErrConflict); conflict != wrote || (err != nil && !conflict) {
						t.Fatalf("commit %d: read of %s at %d: %v, written since: %v", i, k, rv, err, wrote)
					}
				}
				s.mu.Lock()
				sum := int64(0)
				hl := s.histLog.items()
				for j, e := range hl {
					sum += e.bytes
					if e.ver <= h || (j > 0 && e.ver <= hl[j-1].ver) {
						t.Fatalf("commit %d: histLog %v behind horizon %d or out of order", i, hl, h)
					}
				}
				if sum != s.histBytes {
					t.Fatalf("commit %d: histBytes %d, its log sums %d", i, s.histBytes, sum)
				}
				s.mu.Unlock()
				if cfg.HistoryBytes > 0 {
					after := int64(0)
					for _, c := range hist[h+1:] {
						after += c.bytes
					}
					// The bound holds from the first commit under it; the
					// horizon is as low as it allows once it has moved
					// since (it never moves back when the bound is raised).
					if after > cfg.HistoryBytes || (h > bounded && h < v && after+hist[h].bytes <= cfg.HistoryBytes && h > v-min(v, cfg.HistoryVersions)) {
						t.Fatalf("commit %d: the %d commits after horizon %d wrote %d bytes, bound %d (the one at it %d)", i, v-h, h, after, cfg.HistoryBytes, hist[h].bytes)
					}
				}
				if i%50 == 0 {
					checkChains(t, s)
				}
			}
			checkChains(t, s)
		})
	}
}
