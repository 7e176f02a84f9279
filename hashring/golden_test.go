package hashring_test

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/hashring"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt from the current placement")

// goldenRings are the rings whose placement is frozen in testdata/golden.txt. Placement
// is a compatibility promise: clients built from different versions of this package
// must route a key to the same node. A change to these vectors is a breaking change.
func goldenRings(t *testing.T) map[string]*hashring.Ring {
	build := func(cfg hashring.Config, nodes []hashring.Node) *hashring.Ring {
		r, err := hashring.New(cfg, nodes)
		require.NoError(t, err)
		return r
	}
	hosts := []hashring.Node{
		{ID: "10.0.0.1:6379", Weight: 26}, {ID: "10.0.0.2:6379", Weight: 126}, {ID: "10.0.0.3:6379", Weight: 64},
		{ID: "10.0.0.4:6379", Weight: 32}, {ID: "10.0.0.5:6379", Weight: 96}, {ID: "10.0.0.6:6379", Weight: 48},
		{ID: "10.0.0.7:6379", Weight: 80}, {ID: "10.0.0.8:6379", Weight: 112}, {ID: "10.0.0.9:6379", Weight: 40},
		{ID: "10.0.0.10:6379", Weight: 72},
	}
	rings := map[string]*hashring.Ring{
		"equal3":   build(hashring.Config{}, []hashring.Node{{ID: "a", Weight: 1}, {ID: "b", Weight: 1}, {ID: "c", Weight: 1}}),
		"hosts10":  build(hashring.Config{}, hosts),
		"frac1024": build(hashring.Config{Slots: 1 << 10}, []hashring.Node{{ID: "x", Weight: 0.5}, {ID: "y", Weight: 1.25}, {ID: "z", Weight: 3.75}, {ID: "w", Weight: 0.01}}),
		// The four light nodes own one slot each: the probes miss all of them for
		// about a fifth of the keys, so LookupN's rendezvous fallback is frozen too.
		"skewed256": build(hashring.Config{Slots: 1 << 8}, []hashring.Node{
			{ID: "A", Weight: 1000}, {ID: "B", Weight: 1000}, {ID: "C", Weight: 8}, {ID: "D", Weight: 8}, {ID: "E", Weight: 8}, {ID: "F", Weight: 8},
		}),
	}
	// A history: placement depends on the sequence of memberships, so it is frozen too.
	r := rings["hosts10"]
	var err error
	r, err = r.Remove("10.0.0.3:6379")
	require.NoError(t, err)
	r, err = r.Add(hashring.Node{ID: "10.0.0.11:6379", Weight: 126})
	require.NoError(t, err)
	r, err = r.Reweight("10.0.0.2:6379", 63)
	require.NoError(t, err)
	r, err = r.Update(append(hosts[:4:4], hashring.Node{ID: "10.0.0.12:6379", Weight: 50}))
	require.NoError(t, err)
	rings["hosts10-history"] = r
	return rings
}

// goldenLines renders, for each ring and key, the owner and the first three replicas,
// then for each ring the xxhash64 of its encoding. 64 keys sample 64 of the slots; the
// digest covers every slot (a change that moves one slot in 2^18 moves keys too) and
// the encoding that [hashring.Unmarshal] of older versions reads.
func goldenLines(t *testing.T) []string {
	rings := goldenRings(t)
	names := []string{"equal3", "hosts10", "frac1024", "hosts10-history", "skewed256"}
	var lines []string
	for _, name := range names {
		r := rings[name]
		for i := range 64 {
			key := fmt.Sprint("user:", i)
			reps, err := r.LookupN(key, 3)
			require.NoError(t, err)
			lines = append(lines, fmt.Sprintf("%s\t%s\t%s", name, key, strings.Join(reps, ",")))
		}
	}
	for _, name := range names {
		data, err := rings[name].MarshalBinary()
		require.NoError(t, err)
		lines = append(lines, fmt.Sprintf("%s\ttable\t%016x", name, xxhash.Sum64(data)))
	}
	return append(lines, goldenPreferenceLines(t, rings, names)...)
}

// goldenPreferenceLines renders full preference lists, LookupN(key, Len()): the
// lines above freeze three replicas only, so a change to the draws past the
// third (the probe budget of a wider draw, the bitset path beyond 16 replicas,
// its rendezvous fallback sorted by score) kept every vector. wide32, two
// giants and 30 nodes of about one slot, takes the bitset path and, for many
// keys, the fallback.
func goldenPreferenceLines(t *testing.T, rings map[string]*hashring.Ring, names []string) []string {
	wide := []hashring.Node{{ID: "A", Weight: 1000}, {ID: "B", Weight: 1000}}
	for i := range 30 {
		wide = append(wide, hashring.Node{ID: fmt.Sprint("s", i), Weight: 8})
	}
	r, err := hashring.New(hashring.Config{Slots: 1 << 8}, wide)
	require.NoError(t, err)
	rings["wide32"] = r
	var lines []string
	for _, name := range append(names, "wide32") {
		r := rings[name]
		if r.Len() <= 3 {
			continue // the three replicas above are the whole list
		}
		for i := range 32 {
			key := fmt.Sprint("user:", i)
			reps, err := r.LookupN(key, r.Len())
			require.NoError(t, err)
			lines = append(lines, fmt.Sprintf("%s\t%s\tall\t%s", name, key, strings.Join(reps, ",")))
		}
	}
	return lines
}

func TestGolden(t *testing.T) {
	path := filepath.Join("testdata", "golden.txt")
	got := goldenLines(t)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644))
	}
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var want []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		want = append(want, sc.Text())
	}
	require.NoError(t, sc.Err())
	require.Equal(t, want, got, "placement changed: this breaks every client that routes with an older version")
}
