package memkv

import (
	"context"
	"errors"
	"fmt"
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
		{"one of many: reslice, no copy", 8, 8, 1, 7, true},
		{"half", 8, 8, 4, 4, true},
		{"down to a quarter of the array: copied to a smaller one", 8, 16, 6, 5, false},
		{"all", 8, 8, 8, 1, false},
		{"one off a full window: reslice, no copy", 1024, 1024, 1, 1023, true},
		// The window shrank (SetConfig) and the survivors sit at the end of
		// the array: the capacity left is theirs alone, but the array holds
		// 1024 entries, which must go.
		{"most of a full array: copied so the array can go", 1024, 1024, 1020, 9, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := make([]*int, tc.len, tc.cap)
			for i := range log {
				v := i
				log[i] = &v
			}
			orig := log
			got := dropFront(log, tc.drop)
			want := orig[tc.drop:tc.len]
			if len(got) != len(want) {
				t.Fatalf("len %d, want %d", len(got), len(want))
			}
			for i := range got {
				if *got[i] != tc.drop+i {
					t.Fatalf("element %d is %d, want %d", i, *got[i], tc.drop+i)
				}
			}
			if tc.wantCap != 0 && cap(got) != tc.wantCap {
				t.Errorf("cap %d, want %d", cap(got), tc.wantCap)
			}
			if shares := len(got) > 0 && &got[0] == &orig[tc.drop]; shares != tc.wantShare && len(got) > 0 {
				t.Errorf("shares the array: %v, want %v", shares, tc.wantShare)
			}
			if i := slices.IndexFunc(orig[:tc.drop], func(p *int) bool { return p != nil }); i >= 0 {
				t.Errorf("dropped element %d still referenced by the array", i)
			}
		})
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
			func(s *Store) int { return len(s.rangeLog) },
			func(s *Store) int { return cap(s.rangeLog) },
			func(s *Store, i int) any { return &s.rangeLog[i] }},
		{"idempotency keys",
			func(i int) *CommitRequest {
				return &CommitRequest{Sets: [][]byte{[]byte("k"), []byte("v")}, IdempotencyKey: fmt.Appendf(nil, "id%d", i)}
			},
			func(s *Store) int { return len(s.idemOrder) },
			func(s *Store) int { return cap(s.idemOrder) },
			func(s *Store, i int) any { return &s.idemOrder[i] }},
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
	if got := len(s.idem); got != 4 || len(s.idemOrder) != got {
		t.Fatalf("%d keys and %d entries left, want 4", got, len(s.idemOrder))
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
