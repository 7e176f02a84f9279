package main

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/internal/gcoff"
)

// With GOGC=off and a GOMEMLIMIT (the setting Go's GC guide gives a
// process with a memory budget), the runtime keeps the heap it freed mapped
// up to 95% of the limit. The memory guard read that mapped memory: once a
// burst of live data had tripped it (above 90% of the limit) and was
// collected, the reading stayed above 90% and the guard, which resets below
// 80%, refused every command for good, the live heap a few percent of the
// limit. It trips on the memory the collector cannot reclaim (aimd's default
// reading, whose own test also shows garbage alone no longer trips it), and
// so recovers once the data is gone.
func TestMemoryGuardRecoversAfterCollection(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Set(ctx, "k", "v", 0).Err())

	limit := gcoff.WithLimit(t)

	// Live data that brings the memory held up to 93% of the limit, marked
	// by a collection (the limit runs one as the memory nears it): the guard
	// trips. The data is counted from the memory held once WithLimit's
	// collection has run, not up to 93% of the memory mapped: that stopped
	// short of the guard's mark by the free heap earlier tests left mapped
	// in runs too small for the data (held at 88% of the limit after the
	// gateway's other tests, with 5% of it free).
	var live [][]byte
	for n := gcoff.HeldBytes(); float64(n) < 0.93*float64(limit); n += 256 << 10 {
		live = append(live, make([]byte, 256<<10))
	}
	runtime.GC()
	require.NoError(t, g.limiter.Tick(time.Now()))
	require.True(t, g.limiter.Stats().MemoryHigh, "memory held at 93% of the limit trips the guard")
	require.ErrorContains(t, c.Get(ctx, "k").Err(), "memory")
	runtime.KeepAlive(live)

	// The data is dropped and collected: what stays mapped is free heap.
	live = nil
	runtime.GC()
	require.Greater(t, float64(gcoff.MappedBytes())/float64(limit), 0.8, "the runtime keeps the freed heap mapped")
	require.NoError(t, g.limiter.Tick(time.Now()))
	require.False(t, g.limiter.Stats().MemoryHigh, "the guard resets once the data is collected")
	v, err := c.Get(ctx, "k").Result()
	require.NoError(t, err)
	require.Equal(t, "v", v)
}
