package shed_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/tierkit/tierkit/shed"
)

// BenchmarkReleaseDispatchFreshGoroutine: a request on a goroutine of its
// own (as a server starts one per request, its stack at its smallest) is
// admitted on the fast path and, releasing, admits the request queued behind
// it: the dispatch runs on the releasing goroutine's stack, under the lock.
// handler frames of 0 to 512 bytes stand for the caller's frames below the
// release. A dispatch that needs more stack than such a goroutine has grows
// (copies) it while holding the lock; the overload experiment's profiles
// put that in Pop's freeNode (examples/overload/HISTORY.md).
func BenchmarkReleaseDispatchFreshGoroutine(b *testing.B) {
	for _, h := range []struct {
		name string
		run  func(s *shed.Shedder, ctx context.Context, go_ <-chan struct{}) error
	}{
		{"frame=0", holdRelease},
		{"frame=128", handlerRelease[[128]byte]},
		{"frame=256", handlerRelease[[256]byte]},
		{"frame=512", handlerRelease[[512]byte]},
	} {
		b.Run(h.name, func(b *testing.B) { benchReleaseFresh(b, h.run) })
	}
}

// holdRelease acquires, waits for go_, and releases.
//
//go:noinline
func holdRelease(s *shed.Shedder, ctx context.Context, go_ <-chan struct{}) error {
	r, err := s.Acquire(ctx, "a", 0, 1)
	if err != nil {
		return err
	}
	<-go_
	r()
	return nil
}

// handlerRelease is holdRelease with the bytes of A as locals live across
// it, as handler does for Acquire.
//
//go:noinline
func handlerRelease[A [128]byte | [256]byte | [512]byte](s *shed.Shedder, ctx context.Context, go_ <-chan struct{}) error {
	var pad A
	pad[frameSink&127] = 1
	err := holdRelease(s, ctx, go_)
	frameSink += pad[(frameSink+1)&127]
	return err
}

func benchReleaseFresh(b *testing.B, run func(s *shed.Shedder, ctx context.Context, go_ <-chan struct{}) error) {
	s, _ := shed.New(shed.Config{Capacity: shed.Fixed(1)})
	defer s.Close()
	ctx := context.Background()
	held, release, admitted := make(chan error, 1), make(chan struct{}), make(chan error, 1)
	b.ReportAllocs()
	for b.Loop() {
		go func() { held <- run(s, ctx, release) }()
		waitFor(b, func() bool { return s.Stats().InFlight > 0 }, held)
		go func() { // queues behind the holder, admitted by its release
			r, err := s.Acquire(ctx, "b", 0, 1)
			if err == nil {
				r()
			}
			admitted <- err
		}()
		waitFor(b, func() bool { return s.Stats().Queued > 0 }, admitted)
		release <- struct{}{}
		if err := <-held; err != nil {
			b.Fatal(err)
		}
		if err := <-admitted; err != nil {
			b.Fatal(err)
		}
	}
}

// waitFor yields until cond holds; an error from failed (the goroutine
// waited for ended early) fails the benchmark instead of spinning for ever.
func waitFor(b *testing.B, cond func() bool, failed <-chan error) {
	for !cond() {
		select {
		case err := <-failed:
			b.Fatalf("the goroutine ended early: %v", err)
		default:
			runtime.Gosched()
		}
	}
}
