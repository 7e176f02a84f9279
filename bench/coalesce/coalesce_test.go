// Package coalesce_test compares tierkit's coalesce.Group with
// golang.org/x/sync/singleflight and resenje.org/singleflight on the same
// workloads. See README.md for the results and how to read them.
package coalesce_test

import (
	"context"
	"errors"
	"github.com/tierkit/tierkit/bench/internal/cputime"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"

	xsf "golang.org/x/sync/singleflight"
	rsf "resenje.org/singleflight"

	"github.com/tierkit/tierkit/coalesce"
)

// payload is the value every library returns: a pointer, so that x/sync's
// interface{} result does not allocate.
type payload struct{ _ [64]byte }

var shared = &payload{}

// goroutinesPerCPU callers per GOMAXPROCS call the hot key in a closed loop.
const goroutinesPerCPU = 64

// fetch is the fn of every library in the hot-key benchmarks: it stands for a
// backend round trip by giving up the processor 4 times, as a goroutine waiting on
// the network does, so the other callers run and join while it is in flight. It
// uses no timer, whose jitter on a shared machine would drown the figures.
func fetch() (*payload, error) {
	for range 4 {
		runtime.Gosched()
	}
	return shared, nil
}

func trivial() (*payload, error) { return shared, nil }

// hotKey runs goroutinesPerCPU*GOMAXPROCS goroutines, each with its own context
// from newCtx and its own call func from newCall (built once per goroutine, so that
// a closure escaping into the library costs nothing per call in any of them), and
// reports calls per execution of fn and process CPU time per call alongside ns/op.
// Every call must return fn's value.
func hotKey(b *testing.B, newCtx func() (context.Context, context.CancelFunc),
	newCall func(fn func() (*payload, error)) func(ctx context.Context) (*payload, error)) {
	var execs atomic.Int64
	fn := func() (*payload, error) { execs.Add(1); return fetch() }
	b.ReportAllocs()
	b.SetParallelism(goroutinesPerCPU)
	cpu := cputime.ReportProcess(b)
	b.RunParallel(func(pb *testing.PB) {
		ctx, cancel := newCtx()
		defer cancel()
		call := newCall(fn)
		for pb.Next() {
			if v, err := call(ctx); err != nil || v != shared {
				b.Error("wrong answer:", v, err)
				return
			}
		}
	})
	cpu()
	b.ReportMetric(float64(b.N)/float64(execs.Load()), "calls/exec")
}

func tierkitCall(g *coalesce.Group[string, *payload]) func(fn func() (*payload, error)) func(context.Context) (*payload, error) {
	return func(fn func() (*payload, error)) func(context.Context) (*payload, error) {
		f := func(context.Context) (*payload, error) { return fn() }
		return func(ctx context.Context) (*payload, error) { return g.Do(ctx, "hot", f) }
	}
}

func resenjeCall(g *rsf.Group[string, *payload]) func(fn func() (*payload, error)) func(context.Context) (*payload, error) {
	return func(fn func() (*payload, error)) func(context.Context) (*payload, error) {
		f := func(context.Context) (*payload, error) { return fn() }
		return func(ctx context.Context) (*payload, error) {
			v, _, err := g.Do(ctx, "hot", f)
			return v, err
		}
	}
}

func background() (context.Context, context.CancelFunc) { return context.Background(), func() {} }

func cancellable() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}

// BenchmarkHotKey is the speed target: many goroutines call one key whose
// fn takes a little time, so most calls join an execution in flight. The callers'
// context is context.Background (x/sync takes none).
func BenchmarkHotKey(b *testing.B) {
	b.Run("impl=tierkit", func(b *testing.B) {
		var g coalesce.Group[string, *payload]
		hotKey(b, background, tierkitCall(&g))
	})
	b.Run("impl=xsync", func(b *testing.B) {
		var g xsf.Group
		hotKey(b, background, func(fn func() (*payload, error)) func(context.Context) (*payload, error) {
			f := func() (any, error) { return fn() }
			return func(context.Context) (*payload, error) {
				v, err, _ := g.Do("hot", f)
				p, _ := v.(*payload)
				return p, err
			}
		})
	})
	b.Run("impl=resenje", func(b *testing.B) {
		var g rsf.Group[string, *payload]
		hotKey(b, background, resenjeCall(&g))
	})
	b.Run("impl=floor", func(b *testing.B) {
		var g floorGroup
		hotKey(b, background, func(fn func() (*payload, error)) func(context.Context) (*payload, error) {
			return func(context.Context) (*payload, error) { return g.Do(fn) }
		})
	})
	b.Run("impl=yield", func(b *testing.B) {
		var g yieldGroup
		hotKey(b, background, func(fn func() (*payload, error)) func(context.Context) (*payload, error) {
			return func(context.Context) (*payload, error) { return g.Do(fn) }
		})
	})
}

// yieldGroup is not a usable singleflight either: it is floorGroup whose waiters do
// not park but give up the processor (runtime.Gosched) until the flight is done.
// It shows what the alternative to parking costs: a waiter goes round the run
// queue once per yield of the flight in progress instead of once per call.
type yieldGroup struct{ cur atomic.Pointer[yieldFlight] }

type yieldFlight struct {
	done atomic.Bool
	val  *payload
	err  error
}

func (g *yieldGroup) Do(fn func() (*payload, error)) (*payload, error) {
	for {
		if f := g.cur.Load(); f != nil {
			for !f.done.Load() {
				runtime.Gosched()
			}
			return f.val, f.err
		}
		f := new(yieldFlight)
		if g.cur.CompareAndSwap(nil, f) {
			f.val, f.err = fn()
			g.cur.Store(nil)
			f.done.Store(true)
			return f.val, f.err
		}
	}
}

// floorGroup is not a usable singleflight (one key, no context, no panic handling,
// no stats): it is the least any design whose waiters park can do per call, a
// lock-free pointer to the flight in progress and a channel its waiters block on.
// Its figure is the floor under the hot-key benchmark: the runtime's cost to park a
// goroutine and make it runnable again.
type floorGroup struct{ cur atomic.Pointer[floorFlight] }

type floorFlight struct {
	done chan struct{}
	val  *payload
	err  error
}

func (g *floorGroup) Do(fn func() (*payload, error)) (*payload, error) {
	for {
		if f := g.cur.Load(); f != nil {
			<-f.done
			return f.val, f.err
		}
		f := &floorFlight{done: make(chan struct{})}
		if g.cur.CompareAndSwap(nil, f) {
			f.val, f.err = fn()
			g.cur.Store(nil)
			close(f.done)
			return f.val, f.err
		}
	}
}

// BenchmarkHotKeyClosurePerCall is the hot key as most code writes it: the fn
// closure is built for each call and captures the key. A library that may run fn on
// another goroutine (tierkit when the first caller's context can be cancelled,
// resenje always) makes that closure escape to the heap: one small allocation per
// call, joiners included, that x/sync's Do avoids. tierkit-DoWith is the same call
// written with coalesce.DoWith: a static fn and the key (and fn) passed as its
// argument, no closure, no allocation.
func BenchmarkHotKeyClosurePerCall(b *testing.B) {
	b.Run("impl=tierkit", func(b *testing.B) {
		var g coalesce.Group[string, *payload]
		hotKey(b, background, func(fn func() (*payload, error)) func(context.Context) (*payload, error) {
			return func(ctx context.Context) (*payload, error) {
				key := "hot"
				return g.Do(ctx, key, func(context.Context) (*payload, error) { return fetchKey(key, fn) })
			}
		})
	})
	b.Run("impl=tierkit-DoWith", func(b *testing.B) {
		var g coalesce.Group[string, *payload]
		hotKey(b, background, func(fn func() (*payload, error)) func(context.Context) (*payload, error) {
			return func(ctx context.Context) (*payload, error) {
				key := "hot"
				return coalesce.DoWith(&g, ctx, key, keyedFetch{key, fn}, fetchWith)
			}
		})
	})
	b.Run("impl=xsync", func(b *testing.B) {
		var g xsf.Group
		hotKey(b, background, func(fn func() (*payload, error)) func(context.Context) (*payload, error) {
			return func(context.Context) (*payload, error) {
				key := "hot"
				v, err, _ := g.Do(key, func() (any, error) { return fetchKey(key, fn) })
				p, _ := v.(*payload)
				return p, err
			}
		})
	})
}

// keyedFetch is the per-call data of the DoWith form: what the closures of the
// other forms capture, passed by value.
type keyedFetch struct {
	key string
	fn  func() (*payload, error)
}

// fetchWith is the static fn of the DoWith form: a top-level func captures
// nothing, so the call allocates nothing.
func fetchWith(_ context.Context, a keyedFetch) (*payload, error) { return fetchKey(a.key, a.fn) }

var errNoKey = errors.New("no key")

// fetchKey uses the captured key, as a real fn would, and calls fn.
func fetchKey(key string, fn func() (*payload, error)) (*payload, error) {
	if key == "" {
		return nil, errNoKey
	}
	return fn()
}

// BenchmarkHotKeyCancellable is the hot key with callers whose context can be
// cancelled (each goroutine has its own context.WithCancel), the usual case in a
// server. x/sync has no context and is not in this one.
func BenchmarkHotKeyCancellable(b *testing.B) {
	b.Run("impl=tierkit", func(b *testing.B) {
		var g coalesce.Group[string, *payload]
		hotKey(b, cancellable, tierkitCall(&g))
	})
	b.Run("impl=resenje", func(b *testing.B) {
		var g rsf.Group[string, *payload]
		hotKey(b, cancellable, resenjeCall(&g))
	})
}

// BenchmarkDistinctKeys is the no-contention path: every goroutine cycles through
// keys of its own, fn returns at once, so every call is an execution and the
// figure is the fixed cost of the group.
func BenchmarkDistinctKeys(b *testing.B) {
	var next atomic.Int64
	keys := func() []string {
		base := next.Add(1) * 1024
		ks := make([]string, 1024)
		for i := range ks {
			ks[i] = strconv.FormatInt(base+int64(i), 10)
		}
		return ks
	}
	run := func(b *testing.B, do func(ctx context.Context, key string) (*payload, error)) {
		b.ReportAllocs()
		cpu := cputime.ReportProcess(b)
		b.RunParallel(func(pb *testing.PB) {
			ks := keys()
			ctx := context.Background()
			for i := 0; pb.Next(); i++ {
				if v, err := do(ctx, ks[i%len(ks)]); err != nil || v != shared {
					b.Error("wrong answer:", v, err)
					return
				}
			}
		})
		cpu()
	}
	b.Run("impl=tierkit", func(b *testing.B) {
		var g coalesce.Group[string, *payload]
		fn := func(context.Context) (*payload, error) { return trivial() }
		run(b, func(ctx context.Context, key string) (*payload, error) { return g.Do(ctx, key, fn) })
	})
	b.Run("impl=xsync", func(b *testing.B) {
		var g xsf.Group
		fn := func() (any, error) { return trivial() }
		run(b, func(_ context.Context, key string) (*payload, error) {
			v, err, _ := g.Do(key, fn)
			p, _ := v.(*payload)
			return p, err
		})
	})
	b.Run("impl=resenje", func(b *testing.B) {
		var g rsf.Group[string, *payload]
		fn := func(context.Context) (*payload, error) { return trivial() }
		run(b, func(ctx context.Context, key string) (*payload, error) {
			v, _, err := g.Do(ctx, key, fn)
			return v, err
		})
	})
}
