package main

import (
	"context"
	"runtime"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// mappedBytes is the Go memory mapped and not returned to the OS.
func mappedBytes() uint64 {
	s := []rtmetrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	rtmetrics.Read(s)
	return s[0].Value.Uint64() - s[1].Value.Uint64()
}

// gcOffWithLimit sets GOGC=off and a memory limit of 4 times the memory
// mapped (128 MiB at least) until t ends, and returns the limit.
func gcOffWithLimit(t *testing.T) int64 {
	runtime.GC()
	limit := max(int64(4*mappedBytes()), 128<<20)
	oldPercent := debug.SetGCPercent(-1)
	oldLimit := debug.SetMemoryLimit(limit)
	t.Cleanup(func() {
		debug.SetMemoryLimit(oldLimit)
		debug.SetGCPercent(oldPercent)
	})
	return limit
}

// With GOGC=off and a GOMEMLIMIT (the setting Go's GC guide gives a
// process with a memory budget), the runtime keeps the heap it freed mapped
// up to 95% of the limit. The memory guard read that mapped memory: once a
// burst of live data had tripped it (above 90% of the limit) and was
// collected, the reading stayed above 90% and the guard, which resets below
// 80%, refused every command for good, the live heap a few percent of the
// limit. It trips on the memory the collector cannot reclaim, and so
// recovers once the data is gone.
func TestMemoryGuardRecoversAfterCollection(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Set(ctx, "k", "v", 0).Err())

	limit := gcOffWithLimit(t)

	// Live data up to 93% of the limit, marked by a collection (the limit
	// runs one as the memory nears it): the guard trips.
	var live [][]byte
	for float64(mappedBytes()) < 0.93*float64(limit) {
		live = append(live, make([]byte, 256<<10))
	}
	runtime.GC()
	require.NoError(t, g.limiter.Tick(time.Now()))
	require.True(t, g.limiter.Stats().MemoryHigh, "live data at 93% of the limit trips the guard")
	require.ErrorContains(t, c.Get(ctx, "k").Err(), "memory")
	runtime.KeepAlive(live)

	// The data is dropped and collected: what stays mapped is free heap.
	live = nil
	runtime.GC()
	require.Greater(t, float64(mappedBytes())/float64(limit), 0.8, "the runtime keeps the freed heap mapped")
	require.NoError(t, g.limiter.Tick(time.Now()))
	require.False(t, g.limiter.Stats().MemoryHigh, "the guard resets once the data is collected")
	v, err := c.Get(ctx, "k").Result()
	require.NoError(t, err)
	require.Equal(t, "v", v)
}

// garbageSink keeps the compiler from placing the test's garbage on the stack.
var garbageSink []byte

// Garbage does not trip the guard: with GOGC=off the heap grows to near the
// limit before the collector runs and frees it, and the guard, which read
// the garbage as used memory, refused every command from 90% of the limit
// on, however small the live heap.
func TestMemoryGuardIgnoresGarbage(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Set(ctx, "k", "v", 0).Err())
	limit := gcOffWithLimit(t)
	for float64(mappedBytes()) < 0.93*float64(limit) {
		garbageSink = make([]byte, 256<<10)
	}
	garbageSink = nil
	require.NoError(t, g.limiter.Tick(time.Now()))
	require.False(t, g.limiter.Stats().MemoryHigh, "garbage at 93% of the limit")
	v, err := c.Get(ctx, "k").Result()
	require.NoError(t, err)
	require.Equal(t, "v", v)
}
