package cache

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReplaySeedSpread replays the hit-ratio workloads of bench/cache (the
// shared traces, Zipf s = 1.01 over 2^20 keys) and a recency-only one through
// one Cache per seed of the key hash and admission jitter, 16 seeds, and logs
// each workload's mean, lowest and highest hit ratio: how far the hill
// climber's path, which the seed changes, moves the result. It checks that a
// seed replays exactly. Long (a minute): TIERKIT_LONG=1 only, and it skips
// when the traces are absent.
//
//	TIERKIT_LONG=1 go test -run TestReplaySeedSpread -v ./cache/
func TestReplaySeedSpread(t *testing.T) {
	if os.Getenv("TIERKIT_LONG") != "1" {
		t.Skip("long: set TIERKIT_LONG=1")
	}
	oltp, p3, loop := seedTrace(t, "oltp.gz"), seedTrace(t, "p3.gz"), seedTrace(t, "loop.gz")
	r := rand.New(rand.NewPCG(42, 42^0x9e3779b97f4a7c15))
	z := rand.NewZipf(r, 1.01, 1, 1<<20-1)
	zipf := make([]uint64, 2_000_000)
	for i := range zipf {
		zipf[i] = z.Uint64()
	}
	// A working set of 2,000 keys that slides by one key every 20 requests,
	// drawn uniformly: recency is everything, frequency nothing, so the
	// climber must grow the window.
	slide := make([]uint64, 2_000_000)
	for i := range slide {
		slide[i] = uint64(i/20) + r.Uint64N(2000)
	}
	workloads := []struct {
		name string
		keys []uint64
		capa int
	}{
		{"OLTP/250", oltp, 250}, {"OLTP/500", oltp, 500}, {"OLTP/1000", oltp, 1000}, {"OLTP/2000", oltp, 2000},
		{"P3/25k", p3, 25_000}, {"P3/100k", p3, 100_000}, {"loop/256", loop, 256}, {"loop/512", loop, 512},
		{"Zipf/1k", zipf, 1_000}, {"Zipf/10k", zipf, 10_000}, {"slide/500", slide, 500}, {"slide/1500", slide, 1_500},
	}
	const seeds = 16
	var out strings.Builder
	for _, w := range workloads {
		sum, lo, hi, first := 0.0, 101.0, -1.0, 0.0
		for s := uint64(1); s <= seeds; s++ {
			h := seedReplay(w.keys, w.capa, s*0x9e3779b97f4a7c15)
			if s == 1 {
				first = h
			}
			sum, lo, hi = sum+h, min(lo, h), max(hi, h)
		}
		require.Equal(t, first, seedReplay(w.keys, w.capa, 0x9e3779b97f4a7c15), "%s: seed 1 replayed twice", w.name)
		fmt.Fprintf(&out, "| %s | %.2f | %.2f | %.2f |\n", w.name, sum/seeds, lo, hi)
	}
	t.Logf("hit ratio (%%) over %d seeds:\n| workload | mean | lowest | highest |\n|---|---|---|---|\n%s", seeds, out.String())
}

// seedReplay replays keys read-through (look up; on a miss, store) through a
// cache of capacity entries whose key hash and admission jitter use seed, and
// returns the hit ratio in percent.
func seedReplay(keys []uint64, capacity int, seed uint64) float64 {
	c, err := New[uint64, uint64](Config[uint64]{Capacity: capacity})
	if err != nil {
		panic(err)
	}
	c.salt = seed
	c.pol = policy[uint64]{}
	c.pol.init(capacity, seed)
	hits := 0
	for _, k := range keys {
		if _, ok := c.TryGet(k); ok {
			hits++
		} else {
			c.Set(k, k)
		}
	}
	return 100 * float64(hits) / float64(len(keys))
}

// seedTrace reads a trace of the shared folder: ARC format (START COUNT ...:
// the keys START to START+COUNT-1) or one key per line.
func seedTrace(t *testing.T, name string) []uint64 {
	f, err := os.Open("../../shared/traces/" + name)
	if err != nil {
		t.Skipf("no trace: %v", err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	require.NoError(t, err)
	sc := bufio.NewScanner(z)
	var keys []uint64
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		start, err := strconv.ParseUint(fs[0], 10, 64)
		if err != nil {
			continue
		}
		n := uint64(1)
		if len(fs) > 1 {
			if n, err = strconv.ParseUint(fs[1], 10, 64); err != nil {
				continue
			}
		}
		for i := range n {
			keys = append(keys, start+i)
		}
	}
	require.NoError(t, sc.Err())
	return keys
}
