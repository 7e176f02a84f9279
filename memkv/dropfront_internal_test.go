package memkv

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func TestDropFront(t *testing.T) {
	for _, tc := range []struct {
		name      string
		len, cap  int
		drop      int
		wantCap   int // 0: not checked
		wantShare bool
	}{
		{"nothing", 8, 8, 0, 8, true},
		{"one of many: no copy", 8, 8, 1, 8, true},
		{"half", 8, 8, 4, 8, true},
		{"down to a quarter of the array: copied to a smaller one", 16, 16, 12, 9, false},
		{"all of a small array: kept", 8, 8, 8, 8, true},
		{"all of a large array: let go", 64, 64, 64, 0, false},
		{"one off a full window: no copy", 1024, 1024, 1, 1024, true},
		// The window shrank (SetConfig) and the survivors sit at the end of
		// the array: the array holds 1024 entries, which must go.
		{"most of a full array: copied so the array can go", 1024, 1024, 1020, 9, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := make([]*int, tc.len, tc.cap)
			for i := range log {
				v := i
				log[i] = &v
			}
			orig := log
			q := fifo[*int]{buf: log}
			q.dropFront(tc.drop)
			got := q.items()
			want := orig[tc.drop:tc.len]
			if len(got) != len(want) || q.len() != len(want) {
				t.Fatalf("len %d (%d), want %d", len(got), q.len(), len(want))
			}
			for i := range got {
				if *got[i] != tc.drop+i {
					t.Fatalf("element %d is %d, want %d", i, *got[i], tc.drop+i)
				}
			}
			if cap(q.buf) != tc.wantCap {
				t.Errorf("cap %d, want %d", cap(q.buf), tc.wantCap)
			}
			if shares := cap(q.buf) > 0 && &q.buf[:1][0] == &orig[0]; shares != tc.wantShare {
				t.Errorf("shares the array: %v, want %v", shares, tc.wantShare)
			}
			if i := slices.IndexFunc(orig[:tc.drop], func(p *int) bool { return p != nil }); i >= 0 {
				t.Errorf("dropped element %d still referenced by the array", i)
			}
		})
	}
}

// TestFifoSteadyStateReusesArray appends one entry and drops one, as every
// commit does once the window is full: after the array has grown to fit
// the window, it must neither allocate nor grow, and keep the entries in
// order. Appending to a log trimmed by reslicing allocated a larger array
// whenever it reached the end of the one it had.
func TestFifoSteadyStateReusesArray(t *testing.T) {
	for _, window := range []int{1, 3, 100, 1 << 12} {
		t.Run(fmt.Sprint(window), func(t *testing.T) {
			var q fifo[histEntry]
			next := uint64(1)
			step := func() {
				q.push(histEntry{ver: next, bytes: 1})
				next++
				if q.len() > window {
					q.dropFront(q.len() - window)
				}
			}
			for range 4 * window {
				step()
			}
			capBefore := cap(q.buf)
			// Per window's worth of commits: AllocsPerRun rounds down.
			if allocs := testing.AllocsPerRun(4, func() {
				for range window {
					step()
				}
			}); allocs != 0 {
				t.Errorf("%v allocations per %d commits, want 0", allocs, window)
			}
			if cap(q.buf) != capBefore || cap(q.buf) > 2*window+1 {
				t.Errorf("cap %d, was %d, want at most %d", cap(q.buf), capBefore, 2*window+1)
			}
			for i, e := range q.items() {
				if want := next - uint64(window) + uint64(i); e.ver != want {
					t.Fatalf("entry %d is version %d, want %d", i, e.ver, want)
				}
			}
			if i := slices.IndexFunc(q.buf[:q.off], func(e histEntry) bool { return e != histEntry{} }); i >= 0 {
				t.Errorf("dropped slot %d not cleared", i)
			}
		})
	}
}

// TestFifoCopiesBounded pushes and drops in bursts of random sizes and
// checks that the entries are right after every step and that the entries
// copied (to a new array or back to the start of the old one) stay within
// a small multiple of the entries pushed: the amortized bound of push and
// dropFront.
func TestFifoCopiesBounded(t *testing.T) {
	var q fifo[uint64]
	first, next := uint64(0), uint64(0)
	copied, pushed := 0, 0
	array := func() *uint64 { // the array's first slot
		if cap(q.buf) == 0 {
			return nil
		}
		return &q.buf[:1][0]
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		for range rng.IntN(200) {
			arr, off, n := array(), q.off, q.len()
			q.push(next)
			next++
			pushed++
			if array() != arr || q.off != off {
				copied += n
			}
		}
		drop := rng.IntN(q.len() + 1)
		arr, n := array(), q.len()-drop
		q.dropFront(drop)
		first += uint64(drop)
		if array() != arr && n > 0 {
			copied += n
		}
		for i, v := range q.items() {
			if v != first+uint64(i) {
				t.Fatalf("entry %d is %d, want %d", i, v, first+uint64(i))
			}
		}
	}
	if copied > 3*pushed {
		t.Errorf("%d entries copied for %d pushed", copied, pushed)
	}
}

// TestShrunkWindowReleasesLogs fills the range-write log, or the
// idempotency keys, up to its array's capacity, shrinks the window and
// commits once more: the few entries left must move to a small array rather
// than keep the large one alive until enough new entries are appended.
func TestShrunkWindowReleasesLogs(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		req      func(i int) *CommitRequest
		len, cap func(s *Store) int
		at       func(s *Store, i int) any // the address of entry i
	}{
		{"range writes",
			func(int) *CommitRequest { return &CommitRequest{WriteRanges: [][]byte{[]byte("a"), []byte("b")}} },
			func(s *Store) int { return s.rangeLog.len() },
			func(s *Store) int { return cap(s.rangeLog.buf) - s.rangeLog.off },
			func(s *Store, i int) any { return &s.rangeLog.items()[i] }},
		{"idempotency keys",
			func(i int) *CommitRequest {
				return &CommitRequest{Sets: [][]byte{[]byte("k"), []byte("v")}, IdempotencyKey: fmt.Appendf(nil, "id%d", i)}
			},
			func(s *Store) int { return s.idemOrder.len() },
			func(s *Store) int { return cap(s.idemOrder.buf) - s.idemOrder.off },
			func(s *Store, i int) any { return &s.idemOrder.items()[i] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(Config{HistoryVersions: 1 << 16, GCStep: -1})
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; tc.len(s) < 512 || tc.len(s) < tc.cap(s); i++ {
				if _, err := s.Commit(ctx, tc.req(i)); err != nil {
					t.Fatal(err)
				}
			}
			old := &Store{rangeLog: s.rangeLog, idemOrder: s.idemOrder}
			if err := s.SetConfig(Config{HistoryVersions: 4, GCStep: -1}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Put(ctx, []byte("other"), []byte("v")); err != nil {
				t.Fatal(err)
			}
			n := tc.len(s)
			if n == 0 || n > 4 {
				t.Fatalf("%d entries left, want 1 to 4", n)
			}
			if tc.at(s, 0) == tc.at(old, tc.len(old)-n) {
				t.Errorf("the %d entries left still hold the array of %d", n, tc.cap(old))
			}
		})
	}
}

// TestIdempotencyMapShrinks fills the idempotency keys, lets all but the
// last few fall behind the window and checks that the map was rebuilt for
// what is left (a Go map keeps its peak size however many keys are deleted:
// a burst of retries, or a window shrunk by SetConfig, held that memory for
// good) and that deduplication is unchanged on both sides of the horizon.
func TestIdempotencyMapShrinks(t *testing.T) {
	ctx := context.Background()
	s, err := New(Config{HistoryVersions: 1 << 16, GCStep: -1})
	if err != nil {
		t.Fatal(err)
	}
	id := func(i int) []byte { return fmt.Appendf(nil, "id%d", i) }
	const keys = 4096
	for i := range keys {
		req := &CommitRequest{Sets: [][]byte{[]byte("k"), []byte("v")}, IdempotencyKey: id(i)}
		if _, err := s.Commit(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	before := reflect.ValueOf(s.idem).UnsafePointer()
	if err := s.SetConfig(Config{HistoryVersions: 4, GCStep: -1}); err != nil {
		t.Fatal(err)
	}
	v, err := s.Put(ctx, []byte("other"), []byte("v"))
	if err != nil {
		t.Fatal(err)
	}
	// Key i committed at version i+1: the keys of versions h..keys stay.
	if got := len(s.idem); got != 4 || s.idemOrder.len() != got {
		t.Fatalf("%d keys and %d entries left, want 4", got, s.idemOrder.len())
	}
	if reflect.ValueOf(s.idem).UnsafePointer() == before {
		t.Error("the map that held 4096 keys still holds the 4 left")
	}
	// The commit at the horizon (key keys-4) is still deduplicated; the one
	// before it is forgotten and applies again.
	if h := s.Horizon(); h != v-4 {
		t.Fatalf("horizon %d, want %d", h, v-4)
	}
	for _, tc := range []struct {
		key  int
		want error
	}{{keys - 4, ErrAlreadyCommitted}, {keys - 3, ErrAlreadyCommitted}, {keys - 5, nil}} {
		req := &CommitRequest{Sets: [][]byte{[]byte("k"), []byte("w")}, IdempotencyKey: id(tc.key)}
		if _, err := s.Commit(ctx, req); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", id(tc.key), err, tc.want)
		}
	}
}
