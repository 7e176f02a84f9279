package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMemkvWriteAllocs holds a memkv SET of a key that exists to the
// allocations of the store's new version (its struct and its copy of the
// value): the key's copy, the encoded value and the commit request with its
// two slices were made anew for every write, although the store keeps no
// reference to a request or its slices.
func TestMemkvWriteAllocs(t *testing.T) {
	b, err := newMemkvBackend(1)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	ctx, s, now := context.Background(), b.stores[0], time.Now()
	o := op{kind: opSet, key: "key:000001", value: []byte("0123456789abcdef0123456789abcdef")}
	require.True(t, b.write(ctx, s, o, now).found)
	allocs := testing.AllocsPerRun(100, func() {
		if r := b.write(ctx, s, o, now); r.err != nil || !r.found {
			t.Fatalf("SET: %+v", r)
		}
	})
	t.Logf("%.0f allocations per SET", allocs)
	most := 2.0
	if raceEnabled {
		// The race detector makes sync.Pool drop a quarter of what it is
		// given: a new writeReq then allocates its struct, key and value
		// room again (about 3 a write on average; 4 leaves a margin).
		most = 4
	}
	assert.LessOrEqual(t, allocs, most)
}
