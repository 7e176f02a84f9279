package main

import (
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestCmdCollectorColdSeriesOneStripe: a series observed from one goroutine
// at a time holds one stripe, not the 8 to 64 of a contended one. Every
// series was bound with all the stripes (about 15 KB at GOMAXPROCS 16 or
// more), so a tier of many tenants held most of its metrics memory in
// stripes of series no two goroutines ever wrote at once. The bytes
// allocated while binding and observing every command of many tenants must
// stay below two stripes per series.
func TestCmdCollectorColdSeriesOneStripe(t *testing.T) {
	const tenantCount = 64
	names := make([]string, tenantCount)
	for i := range names {
		names[i] = "t" + string(rune('A'+i%26)) + string(rune('a'+i/26))
	}
	c, reg, tenants := newTestCollector(t, names...)
	ts := make([]*tenant, 0, len(tenants))
	for _, tn := range tenants {
		ts = append(ts, tn)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, tn := range ts {
		for _, spec := range specs {
			for i := range 100 {
				c.observe(tn, spec, i%7 != 0, time.Duration(i)*time.Millisecond)
			}
		}
	}
	runtime.ReadMemStats(&after)
	series := uint64(len(ts) * len(specs))
	perSeries := (after.TotalAlloc - before.TotalAlloc) / series
	require.Less(t, perSeries, uint64(2*unsafe.Sizeof(cmdStripe{})),
		"bytes allocated per cold series (one stripe is %d)", unsafe.Sizeof(cmdStripe{}))

	got := gatherCmds(t, reg)
	require.Len(t, got, int(series))
	for _, s := range got {
		require.Equal(t, uint64(100), s.count)
		require.Equal(t, 85.0, s.ok)
	}
}
