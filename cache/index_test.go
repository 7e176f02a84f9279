package cache

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/internal/mix"
)

// testEntry returns an entry for key k with hash h, in no policy.
func testEntry(k int, h uint64) *entry[int, int] {
	return &entry[int, int]{key: k, hash: h}
}

// checkIndex verifies ix against want (key -> entry): every entry found by
// key, no other, the count right, and each entry in the bucket its hash
// selects.
func checkIndex(t *testing.T, ix *index[int, int], want map[int]*entry[int, int]) {
	t.Helper()
	seen := 0
	ix.each(func(n *entry[int, int]) {
		seen++
		require.Same(t, want[n.key], n, "key %d", n.key)
	})
	require.Equal(t, len(want), seen)
	require.Equal(t, len(want), ix.count)
	for k, n := range want {
		require.Same(t, n, ix.get(k, n.hash), "key %d", k)
	}
}

func TestIndex(t *testing.T) {
	tests := []struct {
		name string
		keys int
		hash func(k int) uint64
	}{
		{"few keys", 3, func(k int) uint64 { return mix.Mix64(uint64(k)) }},
		{"grows", 1000, func(k int) uint64 { return mix.Mix64(uint64(k)) }},
		{"one bucket: overflow chains", 40, func(k int) uint64 { return uint64(k) << 60 }},
		{"equal hashes: the key decides", 20, func(int) uint64 { return 42 }},
		{"zero hash", 2, func(int) uint64 { return 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ix index[int, int]
			assert.Nil(t, ix.get(1, tt.hash(1)), "empty index")
			assert.False(t, ix.remove(testEntry(1, tt.hash(1))))
			want := map[int]*entry[int, int]{}
			for k := range tt.keys {
				n := testEntry(k, tt.hash(k))
				ix.put(n)
				want[k] = n
			}
			checkIndex(t, &ix, want)
			assert.Nil(t, ix.get(tt.keys, tt.hash(tt.keys)), "absent key")
			for k := 0; k < tt.keys; k += 2 {
				require.True(t, ix.remove(want[k]))
				require.False(t, ix.remove(want[k]), "removed twice")
				delete(want, k)
			}
			checkIndex(t, &ix, want)
			// An entry replaced keeps its slot; one absent is not replaced.
			for k := 1; k < tt.keys; k += 2 {
				e := testEntry(k, tt.hash(k))
				require.True(t, ix.replace(want[k], e))
				require.False(t, ix.replace(want[k], e), "replaced twice")
				want[k] = e
			}
			checkIndex(t, &ix, want)
			// Freed slots are reused.
			for k := 0; k < tt.keys; k += 2 {
				n := testEntry(k, tt.hash(k))
				ix.put(n)
				want[k] = n
			}
			checkIndex(t, &ix, want)
		})
	}
}

// TestIndexRandom runs random puts and removes against a map.
func TestIndexRandom(t *testing.T) {
	var ix index[int, int]
	want := map[int]*entry[int, int]{}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 50_000 {
		k := r.IntN(2000)
		if n := want[k]; n != nil {
			require.True(t, ix.remove(n))
			delete(want, k)
		} else {
			n := testEntry(k, mix.Mix64(uint64(k))&0xffff) // collisions too
			ix.put(n)
			want[k] = n
		}
		if i%5000 == 0 {
			checkIndex(t, &ix, want)
		}
	}
	checkIndex(t, &ix, want)
}

// TestIndexConcurrentReads races lock-free readers against a writer that puts,
// removes, replaces and grows. Invariants: a key that is never removed is
// always found (also while the table grows); a lookup that no put or remove of
// its key overlapped (a replace may) finds the key if and only if it is
// present; a found entry is always the key's.
func TestIndexConcurrentReads(t *testing.T) {
	const (
		stable = 256   // keys 0..255: put before the readers start, never removed
		churn  = 4096  // keys 256..: put and removed by the writer
		steps  = 40000 // writer operations
	)
	// Per churn key, a sequence number, odd while the writer changes the key
	// (a seqlock), and whether the key is present.
	type state struct {
		seq     atomic.Uint64
		present atomic.Bool
	}
	var (
		ix   index[int, int]
		keys [churn]state
		stop atomic.Bool
	)
	hash := func(k int) uint64 { return mix.Mix64(uint64(k)) }
	for k := range stable {
		ix.put(testEntry(k, hash(k)))
	}
	var wg sync.WaitGroup
	for id := range 3 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(id), 9))
			for !stop.Load() {
				k := r.IntN(stable)
				if n := ix.get(k, hash(k)); n == nil || n.key != k {
					t.Errorf("stable key %d not found (got %v)", k, n)
					return
				}
				i := r.IntN(churn)
				k = stable + i
				st := &keys[i]
				before := st.seq.Load()
				present := st.present.Load()
				n := ix.get(k, hash(k))
				if n != nil && n.key != k {
					t.Errorf("lookup of %d found key %d", k, n.key)
					return
				}
				if before%2 == 0 && st.seq.Load() == before && present != (n != nil) {
					t.Errorf("key %d: present %v, found %v", k, present, n != nil)
					return
				}
			}
		})
	}
	r := rand.New(rand.NewPCG(5, 6))
	live := map[int]*entry[int, int]{}
	for range steps {
		i := r.IntN(churn)
		k, st := stable+i, &keys[i]
		if n := live[k]; n != nil && r.IntN(2) == 0 {
			// An update of a boxed value, outside the seqlock: a reader
			// finds the old entry or the new one, never neither.
			e := testEntry(k, hash(k))
			require.True(t, ix.replace(n, e))
			live[k] = e
			continue
		}
		st.seq.Add(1)
		if n := live[k]; n != nil {
			ix.remove(n)
			delete(live, k)
			st.present.Store(false)
		} else {
			n := testEntry(k, hash(k))
			ix.put(n)
			live[k] = n
			st.present.Store(true)
		}
		st.seq.Add(1)
	}
	stop.Store(true)
	wg.Wait()
	assert.Equal(t, stable+len(live), ix.count)
}

func TestWordValues(t *testing.T) {
	type celsius float32
	type handle struct{ _ *int }
	tests := []struct {
		name string
		got  bool
		want bool
	}{
		{"uint64", isWord[uint64](), true},
		{"int8", isWord[int8](), true},
		{"float64", isWord[float64](), true},
		{"bool", isWord[bool](), true},
		{"defined float32", isWord[celsius](), true},
		{"string", isWord[string](), false},
		{"[]byte", isWord[[]byte](), false},
		{"pointer", isWord[*int](), false},
		{"struct with a pointer", isWord[handle](), false},
		{"complex128 (16 bytes)", isWord[complex128](), false},
		{"[2]uint64", isWord[[2]uint64](), false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.got, tt.name)
	}
	for _, v := range []int8{0, 1, -1, 127, -128} {
		assert.Equal(t, v, fromBits[int8](toBits(v)))
	}
	for _, v := range []float64{0, -0.5, 1e300} {
		assert.Equal(t, v, fromBits[float64](toBits(v)))
	}
	assert.Equal(t, celsius(-3.25), fromBits[celsius](toBits(celsius(-3.25))))
	assert.True(t, fromBits[bool](toBits(true)))
}

// TestMatchTags: every slot whose tag equals the searched one is flagged, and
// a flagged slot that does not match only ever sits above one that does.
func TestMatchTags(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 10_000 {
		var tags uint64
		tagList := make([]uint64, bucketSlots)
		for i := range bucketSlots {
			if r.IntN(4) > 0 {
				tagList[i] = 0x80 | uint64(r.IntN(4)) // few values: many equal tags
				tags |= tagList[i] << (8 * i)
			}
		}
		tag := 0x80 | uint64(r.IntN(4))
		m := matchTags(tags, tag)
		firstMatch := -1
		for i := range 8 {
			flagged := m>>(8*i+7)&1 == 1
			match := i < bucketSlots && tagList[i] == tag
			if match && firstMatch < 0 {
				firstMatch = i
			}
			if match {
				require.True(t, flagged, "tags %#x tag %#x slot %d not flagged", tags, tag, i)
			} else if flagged {
				require.True(t, firstMatch >= 0 && firstMatch < i, "tags %#x tag %#x slot %d flagged alone", tags, tag, i)
			}
		}
	}
}

// TestEntryLayout: on 64-bit platforms an entry with a 64-bit key and value
// fits one 64-byte size class, and it holds nothing the policy writes (the
// policy's links are in the node), so a hit loads its bucket's line and its
// entry's and no reader's line is written by a replay on the other core.
func TestEntryLayout(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("64-bit platforms only")
	}
	assert.LessOrEqual(t, unsafe.Sizeof(entry[uint64, uint64]{}), uintptr(64))
}
