package memkv_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/memkv"
)

// TestHugeGCStepSweepsOnce sets GCStep far above the number of keys: a commit
// must sweep each key about once and return, not walk the few keys over and
// over GCStep times while it holds the commit lock.
func TestHugeGCStepSweepsOnce(t *testing.T) {
	s := newStore(t, memkv.Config{HistoryVersions: 1, GCStep: math.MaxInt})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 3 {
			_, err := s.Put(ctx, b("k"), b("v"))
			assert.NoError(t, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("three Puts with GCStep = MaxInt did not return")
	}
	// Still a full sweep on every commit: only the versions 2 and 3 are left.
	assert.EqualValues(t, 2, s.Stats().Versions)
}
