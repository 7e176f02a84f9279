package txn_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// TestRandomRangeReadConflicts: a transaction makes local writes, then a
// random range read (random bounds, limit, direction), then commits after a
// concurrent transaction wrote random keys. If re-running the same reads
// after the concurrent commit would return something different, the commit
// must fail (zero missed conflicts). Aborts whose reads would not change are
// false conflicts: counted and reported, bounded loosely.
func TestRandomRangeReadConflicts(t *testing.T) {
	trials := 4000
	if testing.Short() {
		trials = 500
	}
	r := rand.New(rand.NewPCG(7, 7))
	key := func() []byte { return []byte(fmt.Sprintf("k%02d", r.IntN(30))) }
	missed, falseConf, realConf, aborts := 0, 0, 0, 0
	for trial := range trials {
		s := newStore(t, memkv.Config{Splits: [][]byte{b("k10"), b("k20")}})
		init := &memkv.CommitRequest{}
		for range 12 {
			init.Sets = append(init.Sets, key(), b(fmt.Sprint(r.IntN(9))))
		}
		_, err := s.Commit(ctx, init)
		require.NoError(t, err)

		type local struct {
			k   []byte
			del bool
		}
		var locals []local
		for range r.IntN(3) {
			locals = append(locals, local{key(), r.IntN(2) == 0})
		}
		lo, hi := key(), key()
		if bytes.Compare(lo, hi) > 0 {
			lo, hi = hi, lo
		}
		limit, reverse := r.IntN(5), r.IntN(2) == 0
		read := func(tx *txn.Tx) []string {
			for _, l := range locals {
				if l.del {
					require.NoError(t, tx.Delete(l.k))
				} else {
					require.NoError(t, tx.Put(l.k, b("local")))
				}
			}
			kvs, err := tx.GetRange(ctx, lo, hi, limit, reverse)
			require.NoError(t, err)
			return keysOf(kvs)
		}
		t1 := begin(t, s, txn.Serializable)
		got := read(t1)
		require.NoError(t, t1.Put(b("out"), b("x")))

		w := randomWrites(r, s.ReadVersion(), key)
		_, err = s.Commit(ctx, w)
		require.NoError(t, err)

		changed := !slices.Equal(got, read(begin(t, s, txn.Serializable)))
		_, err = t1.Commit(ctx)
		if err != nil {
			require.True(t, errors.Is(err, txn.ErrConflict), "trial %d: %v", trial, err)
			aborts++
		}
		switch {
		case changed && err == nil:
			missed++
			t.Errorf("trial %d: missed conflict: read [%s, %s) limit %d reverse %v got %v, writes %q clears %q",
				trial, lo, hi, limit, reverse, got, w.Sets, w.Clears)
		case changed:
			realConf++
		case err != nil:
			falseConf++
		}
	}
	rate := float64(falseConf) / float64(max(aborts, 1))
	t.Logf("%d trials: %d real conflicts caught, %d missed, %d false conflicts (%.1f%% of aborts, %.1f%% of trials)",
		trials, realConf, missed, falseConf, 100*rate, 100*float64(falseConf)/float64(trials))
	assert.Zero(t, missed)
	assert.Positive(t, realConf, "the workload produces real conflicts")
	assert.Less(t, rate, 0.5, "most aborts are real")
}

// randomWrites draws the concurrent transaction: one or two puts or deletes,
// sometimes a range clear.
func randomWrites(r *rand.Rand, rv uint64, key func() []byte) *memkv.CommitRequest {
	w := &memkv.CommitRequest{ReadVersion: rv}
	for range 1 + r.IntN(2) {
		if r.IntN(3) == 0 {
			w.Sets = append(w.Sets, key(), nil)
		} else {
			w.Sets = append(w.Sets, key(), b(fmt.Sprint(r.IntN(9))))
		}
	}
	if r.IntN(6) == 0 {
		a, z := key(), key()
		if bytes.Compare(a, z) > 0 {
			a, z = z, a
		}
		w.Clears = [][]byte{a, z}
	}
	return w
}
