package txn_test

import (
	"errors"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// simConfig describes one randomized workload.
type simConfig struct {
	seed    uint64
	txns    int  // transactions in total
	conc    int  // transactions open at once
	deletes bool // include deletes and range clears
	drop    int  // drop one commit reply in drop (0: never)
	fail    int  // fail one commit before applying in fail (0: never)
	engine  memkv.Config
}

// simulate runs cfg as a deterministic, single-threaded interleaving of
// cfg.conc open transactions: each step advances one transaction, picked at
// random, by one operation or its commit. It returns the history (outcomes
// resolved from the change feed), the final state, and any problem found
// while resolving.
func simulate(t *testing.T, cfg simConfig) ([]*htx, map[string]string, []string) {
	r := rand.New(rand.NewPCG(cfg.seed, 99))
	ecfg := cfg.engine
	ecfg.FeedBuffer = 1 << 20
	ecfg.Faults = memkv.Faults{
		DropReply:        func(*memkv.CommitRequest) bool { return cfg.drop > 0 && r.IntN(cfg.drop) == 0 },
		FailBeforeCommit: func(*memkv.CommitRequest) bool { return cfg.fail > 0 && r.IntN(cfg.fail) == 0 },
	}
	s := newStore(t, ecfg)
	sub := s.Subscribe()
	defer sub.Close()

	type open struct {
		h    *htx
		tx   *txn.Tx
		next int
	}
	slots := make([]*open, cfg.conc)
	var hist []*htx
	nextVal, started := 0, 0
	for started < cfg.txns || anyOpen(slots) {
		i := r.IntN(len(slots))
		o := slots[i]
		if o == nil {
			if started == cfg.txns {
				continue
			}
			h := &htx{id: started, ops: genOps(r, &nextVal, cfg.deletes)}
			started++
			tx, err := txn.Begin(s, txn.Options{})
			require.NoError(t, err)
			slots[i] = &open{h: h, tx: tx}
			hist = append(hist, h)
			continue
		}
		if o.next < len(o.h.ops) {
			got, err := execOp(txAPI{o.tx}, o.h.ops[o.next])
			o.h.ops[o.next].got = got
			o.next++
			if err != nil {
				require.ErrorIs(t, err, txn.ErrTooOld)
				o.tx.Rollback()
				o.h.outcome, o.h.ops = 'a', o.h.ops[:o.next]
				slots[i] = nil
			}
			continue
		}
		v, err := o.tx.Commit(ctx)
		out, uerr := outcomeOf(err)
		require.NoError(t, uerr)
		o.h.outcome, o.h.version, o.h.readOnly = out, v, !o.h.writes()
		slots[i] = nil
	}
	return hist, finalState(t, s), resolve(hist, drain(t, sub))
}

func anyOpen[T any](s []*T) bool {
	for _, x := range s {
		if x != nil {
			return true
		}
	}
	return false
}

func drain(t *testing.T, sub *memkv.Subscription) []memkv.Event {
	var evs []memkv.Event
	for {
		e, ok, err := sub.TryNext()
		require.NoError(t, err, "the feed must not overflow")
		if !ok {
			return evs
		}
		evs = append(evs, e)
	}
}

func finalState(t *testing.T, s *memkv.Store) map[string]string {
	kvs, err := s.Scan(ctx, s.ReadVersion(), nil, nil, 0, false, nil)
	require.NoError(t, err)
	m := map[string]string{}
	for i := 0; i < len(kvs); i += 2 {
		m[string(kvs[i])] = string(kvs[i+1])
	}
	return m
}

// violations runs every checker on a history.
func violations(hist []*htx, final map[string]string, resolveBad []string, deletes bool) []string {
	bad := append([]string{}, resolveBad...)
	msg, model := replay(hist)
	if msg != "" {
		bad = append(bad, "replay: "+msg)
	} else if !mapsEqual(model, final) {
		bad = append(bad, "replay: final state differs from the store's")
	}
	if !deletes {
		bad = append(bad, checkListAppend(hist, final)...)
	}
	return bad
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func longRun() bool { return os.Getenv("TIERKIT_LONG") == "1" }

func TestSimulatedHistoriesAreSerializable(t *testing.T) {
	seeds := 30
	if longRun() {
		seeds = 1000
	}
	stats := map[byte]int{}
	for seed := range uint64(seeds) {
		for _, deletes := range []bool{false, true} {
			cfg := simConfig{seed: seed, txns: 200, conc: 5, deletes: deletes, drop: 10, fail: 20,
				engine: memkv.Config{HistoryVersions: 12, Splits: [][]byte{b("k3"), b("k6")}}}
			hist, final, rb := simulate(t, cfg)
			bad := violations(hist, final, rb, deletes)
			require.Empty(t, bad, "seed %d deletes %v", seed, deletes)
			for _, h := range hist {
				stats[h.outcome]++
			}
		}
	}
	t.Logf("%d seeds x 2 workloads: %d committed, %d aborted (unknown outcomes resolved from the feed)", seeds, stats['c'], stats['a'])
	assert.Positive(t, stats['c'])
	assert.Positive(t, stats['a'])
}

// TestBugSwitchesAreCaught runs the simulated workload against a memkv with
// one validation bug switched on: the checkers must report a violation
// within maxSeeds seeds.
func TestBugSwitchesAreCaught(t *testing.T) {
	const maxSeeds = 20
	tests := []struct {
		name    string
		bugs    memkv.Bugs
		deletes bool
	}{
		{"ignore read keys", memkv.Bugs{IgnoreReadKeys: true}, false},
		{"ignore read ranges", memkv.Bugs{IgnoreReadRanges: true}, false},
		{"ignore too old", memkv.Bugs{IgnoreTooOld: true}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range uint64(maxSeeds) {
				cfg := simConfig{seed: seed, txns: 200, conc: 6, deletes: tt.deletes,
					engine: memkv.Config{HistoryVersions: 3, GCStep: 64, Bugs: tt.bugs}}
				hist, final, rb := simulate(t, cfg)
				if bad := violations(hist, final, rb, tt.deletes); len(bad) > 0 {
					t.Logf("caught at seed %d: %s", seed, bad[0])
					// Control: the same workload without the bug is clean.
					cfg.engine.Bugs = memkv.Bugs{}
					hist, final, rb = simulate(t, cfg)
					require.Empty(t, violations(hist, final, rb, tt.deletes), "control run, seed %d", seed)
					return
				}
			}
			t.Fatalf("bug not caught within %d seeds", maxSeeds)
		})
	}
}

// TestConcurrentHistories runs the workload from real goroutines with
// dropped replies and injected failures, then checks the history with the
// replay oracle and the list-append checker.
func TestConcurrentHistories(t *testing.T) {
	const workers = 4
	each := 150
	if longRun() {
		each = 5000
	}
	var drops, fails atomic.Uint64
	s := newStore(t, memkv.Config{FeedBuffer: 1 << 20, HistoryVersions: 64, Splits: [][]byte{b("k4")},
		Faults: memkv.Faults{
			DropReply:        func(*memkv.CommitRequest) bool { return drops.Add(1)%11 == 0 },
			FailBeforeCommit: func(*memkv.CommitRequest) bool { return fails.Add(1)%17 == 0 },
		}})
	sub := s.Subscribe()
	defer sub.Close()
	var mu sync.Mutex
	var hist []*htx
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 5))
			nextVal := w * 1_000_000
			for i := range each {
				h := &htx{id: w*1_000_000 + i, ops: genOps(r, &nextVal, false)}
				tx, err := txn.Begin(s, txn.Options{})
				if !assert.NoError(t, err) {
					return
				}
				h.outcome = 'c'
				for j := range h.ops {
					runtime.Gosched() // let other transactions interleave
					got, err := execOp(txAPI{tx}, h.ops[j])
					h.ops[j].got = got
					if err != nil {
						assert.True(t, errors.Is(err, txn.ErrTooOld), "%v", err)
						tx.Rollback()
						h.outcome, h.ops = 'a', h.ops[:j+1]
						break
					}
				}
				if h.outcome == 'c' {
					v, err := tx.Commit(ctx)
					out, uerr := outcomeOf(err)
					assert.NoError(t, uerr)
					h.outcome, h.version, h.readOnly = out, v, !h.writes()
				}
				mu.Lock()
				hist = append(hist, h)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	rb := resolve(hist, drain(t, sub))
	bad := violations(hist, finalState(t, s), rb, false)
	require.Empty(t, bad)
	st := s.Stats()
	t.Logf("%d transactions: %d commits, %d conflicts, %d dropped replies, %d injected failures",
		len(hist), st.Commits, st.Conflicts, st.DroppedReplies, st.Injected)
	assert.Positive(t, st.DroppedReplies)
}
