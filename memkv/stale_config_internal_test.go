package memkv

import (
	"context"
	"testing"
)

// TestCommitUsesTheConfigInForceUnderTheSequencer sets a HistoryBytes bound
// while a commit is between loading the Config and taking the sequencer (in
// its FailBeforeCommit hook, which runs outside the locks), and commits under
// the bound meanwhile. The late commit used to apply with the Config it
// loaded before, which had no bound: it took the bound as lifted and dropped
// the log of the commits after the horizon, so the horizon stayed put while
// the commits after it wrote more than the bound.
func TestCommitUsesTheConfigInForceUnderTheSequencer(t *testing.T) {
	ctx := context.Background()
	const bound = 10
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	put := func(k string) {
		t.Helper()
		if _, err := s.Put(ctx, []byte(k), []byte("vv")); err != nil { // 4 bytes
			t.Fatal(err)
		}
	}
	hooked := false
	cfg := Config{Faults: Faults{FailBeforeCommit: func(*CommitRequest) bool {
		if !hooked {
			hooked = true
			if err := s.SetConfig(Config{HistoryBytes: bound}); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"a1", "a2", "a3"} {
				put(k)
			}
		}
		return false
	}}}
	if err := s.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	put("b1") // loads cfg, then the hook bounds the window and commits a1..a3
	for _, k := range []string{"c1", "c2", "c3"} {
		put(k)
		// Every commit writes 4 bytes.
		h, v := s.Horizon(), s.ReadVersion()
		if after := 4 * int64(v-h); after > bound {
			t.Fatalf("after %s: the %d commits after horizon %d wrote %d bytes, HistoryBytes %d", k, v-h, h, after, bound)
		}
	}
}
