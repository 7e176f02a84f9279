package cputime

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

func burn() (x uint64) {
	for i := range uint64(20_000_000) {
		x += i * i
	}
	return x
}

var sink uint64

func TestClocksAdvanceWithWork(t *testing.T) {
	if runtime.GOOS != "linux" {
		_, ok := Thread()
		require.False(t, ok)
		return
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0, ok := Thread()
	require.True(t, ok)
	p0, ok := Process()
	require.True(t, ok)
	sink += burn()
	t1, _ := Thread()
	p1, _ := Process()
	require.Greater(t, t1, t0, "burning CPU advances the thread clock")
	require.GreaterOrEqual(t, p1-p0, t1-t0-1e7, "the process clock counts at least the thread's work (tick precision)")
}

func BenchmarkReporters(b *testing.B) {
	b.ReportAllocs()
	stopT := ReportThread(b)
	for b.Loop() {
		sink += uint64(b.N)
	}
	stopT()
	stopP := ReportProcess(b)
	stopP()
}
