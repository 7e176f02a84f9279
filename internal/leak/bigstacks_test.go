package leak

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLeakedPastAMegabyteOfStacks: Leaked reads every goroutine's stack,
// however many there are. Check's snapshot starts with a buffer of 1 MiB and
// grows it until the stacks fit; with a buffer that did not grow, the stacks
// past the first MiB were cut off, and a goroutine started late (the last
// printed) was not reported: the suite, whose tests run a few goroutines,
// passed with the growth removed. Here goroutines alive before the snapshot
// print well over a MiB of stacks, then more are leaked.
func TestLeakedPastAMegabyteOfStacks(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	const deep, goroutines = 60, 600 // about 6 KB of stack text each
	ready := make(chan struct{}, goroutines)
	for range goroutines {
		go nest(deep, ready, stop)
	}
	for range goroutines {
		<-ready
	}
	before := Snapshot()
	require.Greater(t, stackBytes(), 3<<19, "the stacks fit in the first buffer: the test shows nothing")
	// Many: a new goroutine may reuse the record of one that exited, and
	// be printed early; those that do not are printed last.
	const leaked = 200
	for range leaked {
		go nest(0, ready, stop)
	}
	for range leaked {
		<-ready
	}
	require.Len(t, Leaked(before), leaked, "every goroutine started after the snapshot is reported")
}

// nest recurses depth times, then signals ready and blocks until stop.
func nest(depth int, ready chan<- struct{}, stop <-chan struct{}) {
	if depth > 0 {
		nest(depth-1, ready, stop)
		return
	}
	ready <- struct{}{}
	<-stop
}

// stackBytes is the length of every goroutine's stack text.
func stackBytes() int {
	buf := make([]byte, 64<<20)
	return runtime.Stack(buf, true)
}
