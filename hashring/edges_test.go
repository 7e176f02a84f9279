package hashring_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/tierkit/tierkit/hashring"
)

// A node-ID length near 2^64 makes the bounds check l+8 overflow; Unmarshal then
// slices p[k:k+int(l)] with a negative end and panics instead of returning ErrCorrupt.
func TestUnmarshalHugeIDLength(t *testing.T) {
	buf := []byte("hring1")
	buf = append(buf, 8) // 2^8 slots
	buf = binary.AppendUvarint(buf, 1)
	buf = binary.AppendUvarint(buf, math.MaxUint64) // ID length: l+8 wraps to 7
	buf = append(buf, make([]byte, 16)...)
	buf = binary.LittleEndian.AppendUint64(buf, xxhash.Sum64(buf))
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("Unmarshal panicked: %v", p)
		}
	}()
	_, err := hashring.Unmarshal(buf)
	if !errors.Is(err, hashring.ErrCorrupt) {
		t.Fatalf("err = %v, want ErrCorrupt", err)
	}
}

// Forget checks "nothing in flight" and drops the counter non-atomically with
// Acquire: an Acquire that fetched the counter before Forget increments a dropped
// counter; its Release then finds a fresh zero counter, is clamped, and Total leaks.
func TestForgetRacesAcquire(t *testing.T) {
	var l hashring.Loads
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				l.Forget("a")
			}
		}
	}()
	for range 500_000 {
		l.Acquire("a")
		l.Release("a")
	}
	close(stop)
	wg.Wait()
	if got := l.Total(); got != 0 {
		t.Fatalf("Total = %d after balanced Acquire/Release pairs, want 0 (Load(a) = %d, stats %+v)", got, l.Load("a"), l.Stats())
	}
}

// LookupN documents: "When a node leaves, only the replica sets that contained it change."
func TestLookupNFallbackStableOnLeave(t *testing.T) {
	nodes := []hashring.Node{{ID: "A", Weight: 1000}, {ID: "B", Weight: 1000}, {ID: "C", Weight: 8}, {ID: "D", Weight: 8}, {ID: "E", Weight: 8}, {ID: "F", Weight: 8}}
	r, err := hashring.New(hashring.Config{Slots: 1 << 8}, nodes)
	if err != nil {
		t.Fatal(err)
	}
	next, err := r.Remove("E")
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	var example string
	for i := range 10000 {
		key := fmt.Sprint("k", i)
		before, _ := r.LookupN(key, 3)
		if slices.Contains(before, "E") {
			continue
		}
		after, _ := next.LookupN(key, 3)
		if !slices.Equal(before, after) {
			changed++
			if example == "" {
				example = fmt.Sprintf("%s: %v -> %v", key, before, after)
			}
		}
	}
	if changed > 0 {
		t.Fatalf("%d replica sets without E changed when E left, e.g. %s", changed, example)
	}
}

// TestReleaseUnknownCreatesNoCounter: releasing a node that was never
// acquired (a caller bug, or a node already forgotten) changes nothing.
// Before, it created a counter for the ID, copying the map under the lock,
// and Stats.Nodes grew with every such ID.
func TestReleaseUnknownCreatesNoCounter(t *testing.T) {
	var l hashring.Loads
	l.Release("never-acquired")
	l.Acquire("a")
	l.Release("a")
	l.Release("a") // one too many: clamped
	l.Release("other")
	st := l.Stats()
	if st.Nodes != 1 || l.Total() != 0 || l.Load("a") != 0 {
		t.Fatalf("Nodes %d, Total %d, Load(a) %d; want 1, 0, 0", st.Nodes, l.Total(), l.Load("a"))
	}
}
