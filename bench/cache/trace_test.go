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

	"github.com/stretchr/testify/require"
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

// replayResult is what replay measured.
type replayResult struct {
	ratio   float64 // hits in percent of the requests
	meanLen float64 // mean entries held over the samples, -1 when the cache cannot tell
	peak    int     // most entries held in a sample, -1 when the cache cannot tell
	wrong   int     // lookups that returned a value other than the one stored
}

// replay runs keys through c as a read-through cache (lookup, store on a miss)
// and returns the hit ratio with the mean and the peak number of entries held
// (sampled every 64 requests). The value stored for a key is the key, so every
// hit is checked: a lookup that returns another value counts as wrong, not as
// a hit.
func replay(c kv, keys []uint64) replayResult {
	res := replayResult{meanLen: -1, peak: -1}
	hits, samples, sum := 0, 0, 0
	for i, k := range keys {
		if v, ok := c.Get(k); ok && v == k {
			hits++
		} else {
			if ok {
				res.wrong++
			}
			c.Set(k, k)
		}
		if i%64 == 63 {
			if n := c.Len(); n >= 0 {
				samples++
				sum += n
				res.peak = max(res.peak, n)
			}
		}
	}
	if samples > 0 {
		res.meanLen = float64(sum) / float64(samples)
	}
	if len(keys) > 0 {
		res.ratio = 100 * float64(hits) / float64(len(keys))
	}
	return res
}

// liarKV answers every lookup with a value other than the one stored.
type liarKV struct{}

func (liarKV) Get(k uint64) (uint64, bool) { return k + 1, true }
func (liarKV) Set(uint64, uint64)          {}
func (liarKV) Len() int                    { return -1 }

// TestReplayCountsOnlyStoredValues: a cache that returns the wrong value
// scores no hit, and replay reports its wrong lookups.
func TestReplayCountsOnlyStoredValues(t *testing.T) {
	res := replay(liarKV{}, []uint64{1, 2, 1, 2})
	require.Zero(t, res.ratio)
	require.Equal(t, 4, res.wrong)
	require.Equal(t, -1, res.peak)
	res = replay(newLRU(1), []uint64{1, 1, 2, 1})
	require.Equal(t, replayResult{ratio: 25, meanLen: -1, peak: -1}, res)
}

// TestReplayReportsRistrettoOccupancy: replay samples ristretto's entries
// held, as it does every other peer's, and they stay within its MaxCost once
// its buffer is applied.
func TestReplayReportsRistrettoOccupancy(t *testing.T) {
	c := newRistretto(100)
	defer closeKV(c)
	keys := make([]uint64, 64*50)
	for i := range keys {
		keys[i] = uint64(i % 300)
	}
	res := replay(c, keys)
	require.GreaterOrEqual(t, res.peak, 0)
	require.LessOrEqual(t, res.peak, 100)
	c.(ristrettoKV).c.Wait()
	require.Positive(t, c.Len())
	require.LessOrEqual(t, c.Len(), 100)
}

// TestRistrettoStrictSeesEachSet: ristretto-strict makes each Set visible to
// the next lookup, as ristretto's Wait promises, so a replay through it counts
// the hits ristretto's policy earns and not its buffer's delay: with room for
// every key, each key misses only once.
func TestRistrettoStrictSeesEachSet(t *testing.T) {
	c := newRistrettoStrict(1000)
	defer closeKV(c)
	keys := make([]uint64, 0, 2000)
	for i := range 2000 {
		keys = append(keys, uint64(i%100))
	}
	res := replay(c, keys)
	require.Zero(t, res.wrong)
	require.InDelta(t, 95.0, res.ratio, 1e-9, "100 keys, 2000 requests: 100 cold misses")
	require.LessOrEqual(t, res.peak, 1000)
}
