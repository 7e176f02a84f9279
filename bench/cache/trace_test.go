package cache_test

import (
	"bufio"
	"compress/gzip"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// tracesDir is the shared trace folder, relative to this package's directory.
const tracesDir = "../../../shared/traces"

var traceCache sync.Map // name -> []uint64

// loadTrace reads a trace and skips the test when it is absent. Two formats:
// ARC ("START COUNT X Y" per line, one request for each key
// START..START+COUNT-1) and LIRS (one key per line).
func loadTrace(tb testing.TB, name string) []uint64 {
	tb.Helper()
	if keys, ok := traceCache.Load(name); ok {
		return keys.([]uint64)
	}
	f, err := os.Open(filepath.Join(tracesDir, name))
	if errors.Is(err, fs.ErrNotExist) {
		tb.Skipf("trace %s absent (the shared traces folder is not next to the repository)", name)
	}
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	var keys []uint64
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		start, err1 := strconv.ParseUint(fields[0], 10, 64)
		count, err2 := uint64(1), error(nil)
		if len(fields) >= 2 {
			count, err2 = strconv.ParseUint(fields[1], 10, 64)
		}
		if err1 != nil || err2 != nil {
			tb.Fatalf("trace %s: bad line %q", name, sc.Text())
		}
		for k := start; k < start+count; k++ {
			keys = append(keys, k)
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	traceCache.Store(name, keys)
	return keys
}

// zipfKeys returns n keys drawn from a Zipf distribution (s=1.01) over keyspace
// keys, with a fixed seed so every cache sees the same sequence.
func zipfKeys(n int, keyspace uint64, seed uint64) []uint64 {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	z := rand.NewZipf(r, 1.01, 1, keyspace-1)
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = z.Uint64()
	}
	return keys
}

// replay runs keys through c as a read-through cache (lookup, store on a miss)
// and returns the hit ratio in percent, with the mean and the peak number of
// entries held (sampled every 64 requests; -1 when c cannot tell).
func replay(c kv, keys []uint64) (ratio, meanLen float64, maxLen int) {
	hits, samples, sum := 0, 0, 0
	for i, k := range keys {
		if _, ok := c.Get(k); ok {
			hits++
		} else {
			c.Set(k, k)
		}
		if i%64 == 63 {
			n := c.Len()
			samples++
			sum += n
			maxLen = max(maxLen, n)
		}
	}
	if samples > 0 {
		meanLen = float64(sum) / float64(samples)
	}
	return 100 * float64(hits) / float64(len(keys)), meanLen, maxLen
}
