package coalesce_test

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/coalesce"
)

// request is the per-call data a DoWith caller passes as arg.
type request struct {
	key    string
	tenant int
}

// TestDoWith: fn runs once with the arg of the caller that started the execution,
// every joiner gets its result, with fn inline (ctx that cannot be cancelled) and
// on its own goroutine (ctx that can).
func TestDoWith(t *testing.T) {
	for _, name := range []string{"background", "cancellable"} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const n = 100
				var g coalesce.Group[string, string]
				release := make(chan struct{})
				runs := 0
				load := func(ctx context.Context, r request) (string, error) {
					runs++
					<-release
					if ctx.Err() != nil {
						return "", ctx.Err()
					}
					return r.key + "@" + strconv.Itoa(r.tenant), nil
				}
				ctx := context.Background()
				if name == "cancellable" {
					var cancel context.CancelFunc
					ctx, cancel = cancellable()
					defer cancel()
				}
				first := make(chan struct{})
				go func() {
					defer close(first)
					v, err := coalesce.DoWith(&g, ctx, "k", request{"k", 0}, load)
					assert.NoError(t, err)
					assert.Equal(t, "k@0", v)
				}()
				synctest.Wait() // the first caller's fn is in flight
				var wg sync.WaitGroup
				for i := 1; i < n; i++ {
					wg.Go(func() {
						v, err := coalesce.DoWith(&g, ctx, "k", request{"k", i}, load)
						assert.NoError(t, err)
						assert.Equal(t, "k@0", v, "a joiner gets the first caller's result")
					})
				}
				synctest.Wait()
				st := g.Stats()
				assert.EqualValues(t, n, st.Calls)
				assert.EqualValues(t, 1, st.Executions)
				assert.EqualValues(t, n-1, st.Joins)
				close(release)
				wg.Wait()
				<-first
				assert.Equal(t, 1, runs)
				assert.Zero(t, g.Stats().InFlight)
			})
		})
	}
}

// TestDoWithOutcomes: panics, Goexit, early leaving and abandonment behave as for
// Do.
func TestDoWithOutcomes(t *testing.T) {
	t.Run("panic reaches every waiter", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var g coalesce.Group[int, int]
			release := make(chan struct{})
			boom := func(_ context.Context, arg int) (int, error) { <-release; panic(arg) }
			var wg sync.WaitGroup
			for i := range 10 {
				wg.Go(func() {
					_, err := coalesce.DoWith(&g, context.Background(), 1, 7, boom)
					var pe *coalesce.PanicError
					if assert.ErrorAs(t, err, &pe, "caller %d", i) {
						assert.Equal(t, 7, pe.Value)
					}
				})
			}
			synctest.Wait()
			close(release)
			wg.Wait()
			assert.EqualValues(t, 1, g.Stats().Panics)
		})
	})
	t.Run("goexit on goroutine", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var g coalesce.Group[int, int]
			ctx, cancel := cancellable()
			defer cancel()
			exit := func(context.Context, int) (int, error) { runtime.Goexit(); return 0, nil }
			_, err := coalesce.DoWith(&g, ctx, 1, 0, exit)
			assert.ErrorIs(t, err, coalesce.ErrGoexit)
		})
	})
	t.Run("last waiter leaves", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var g coalesce.Group[int, int]
			var fnErr error
			block := func(ctx context.Context, _ int) (int, error) {
				<-ctx.Done()
				fnErr = ctx.Err()
				return 0, fnErr
			}
			ctxs := make([]context.CancelFunc, 3)
			var wg sync.WaitGroup
			for i := range ctxs {
				ctx, cancel := cancellable()
				ctxs[i] = cancel
				wg.Go(func() {
					_, err := coalesce.DoWith(&g, ctx, 1, i, block)
					assert.ErrorIs(t, err, context.Canceled)
				})
			}
			synctest.Wait()
			for _, cancel := range ctxs {
				cancel()
			}
			wg.Wait()
			synctest.Wait()
			assert.ErrorIs(t, fnErr, context.Canceled)
			st := g.Stats()
			assert.EqualValues(t, 1, st.Abandoned)
			assert.EqualValues(t, 3, st.CancelledWaiters)
			// The key is free: a new caller runs fn afresh.
			v, err := coalesce.DoWith(&g, context.Background(), 1, 5,
				func(_ context.Context, arg int) (int, error) { return arg, nil })
			assert.NoError(t, err)
			assert.Equal(t, 5, v)
		})
	})
	t.Run("done on entry", func(t *testing.T) {
		var g coalesce.Group[int, int]
		ctx, cancel := cancellable()
		cancel()
		_, err := coalesce.DoWith(&g, ctx, 1, 0, func(context.Context, int) (int, error) { return 1, nil })
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, coalesce.Stats{Calls: 1, CancelledWaiters: 1}, g.Stats())
	})
}

// held is the arg of a DoWith call whose fn waits for release.
type held struct {
	key     string
	release chan struct{}
}

// loadHeld is a static fn for DoWith: a top-level func captures nothing.
func loadHeld(_ context.Context, h held) (int, error) {
	<-h.release
	return len(h.key), nil
}

// TestJoinersAllocateNothing: callers that join an execution in flight make no
// allocation with DoWith and a static fn, with either kind of context; with Do and
// a func literal built per call that captures the key, each makes one (the
// closure, which escapes because fn may run on another goroutine), which is why
// DoWith exists.
func TestJoinersAllocateNothing(t *testing.T) {
	const n = 500
	load := func(_ context.Context, key string) (int, error) { return len(key), nil }
	forms := []struct {
		name       string
		do         func(g *coalesce.Group[string, int], ctx context.Context, key string, release chan struct{}) (int, error)
		perJoinMin float64
		perJoinMax float64
	}{
		{
			name: "DoWith",
			do: func(g *coalesce.Group[string, int], ctx context.Context, key string, release chan struct{}) (int, error) {
				return coalesce.DoWith(g, ctx, key, held{key, release}, loadHeld)
			},
			perJoinMax: 0.05,
		},
		{
			name: "Do with closure per call",
			do: func(g *coalesce.Group[string, int], ctx context.Context, key string, release chan struct{}) (int, error) {
				return g.Do(ctx, key, func(ctx context.Context) (int, error) {
					<-release
					return load(ctx, key)
				})
			},
			perJoinMin: 1,
			perJoinMax: 1.05,
		},
	}
	for _, form := range forms {
		for _, ctxName := range []string{"background", "cancellable"} {
			t.Run(form.name+"/"+ctxName, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					var g coalesce.Group[string, int]
					ctx := context.Background()
					if ctxName == "cancellable" {
						var cancel context.CancelFunc
						ctx, cancel = cancellable()
						defer cancel()
					}
					key := strconv.Itoa(42) // on the heap, as a real key is
					round := func() float64 {
						release := make(chan struct{})
						start := make(chan struct{})
						var wg sync.WaitGroup
						wg.Go(func() { _, _ = form.do(&g, ctx, key, release) })
						synctest.Wait() // the first caller's execution is in flight
						for range n {
							wg.Go(func() {
								<-start
								v, err := form.do(&g, ctx, key, release)
								assert.NoError(t, err)
								assert.Equal(t, len(key), v)
							})
						}
						synctest.Wait() // every joiner is ready, none has called
						var before, after runtime.MemStats
						runtime.ReadMemStats(&before)
						close(start)
						synctest.Wait() // every joiner is parked on the execution
						runtime.ReadMemStats(&after)
						close(release)
						wg.Wait()
						return float64(after.Mallocs-before.Mallocs) / n
					}
					// The runtime allocates a goroutine's wait records (sudogs) when
					// its caches are empty, and a GC empties them: the least of a
					// few rounds after a warm-up is what the calls themselves cost.
					round()
					perJoin := round()
					for range 3 {
						perJoin = min(perJoin, round())
					}
					t.Logf("%.3f allocations per joining caller", perJoin)
					assert.GreaterOrEqual(t, perJoin, form.perJoinMin)
					assert.LessOrEqual(t, perJoin, form.perJoinMax)
				})
			})
		}
	}
}

// TestHotSlot: the lock-free join path never lets a caller join an execution that
// Forget removed, that finished, or that every waiter left.
func TestHotSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g coalesce.Group[string, int]
		gen := 0
		releases := map[int]chan struct{}{}
		fn := func(ctx context.Context) (int, error) {
			gen++
			my := gen
			release := make(chan struct{})
			releases[my] = release
			select {
			case <-release:
				return my, nil
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		}
		results := make(chan int, 100)
		call := func(ctx context.Context) {
			v, err := g.Do(ctx, "k", fn)
			if err == nil {
				results <- v
			}
		}
		// Three callers: the first starts execution 1, the second joins it under
		// the lock (publishing it as hot), the third joins it lock-free.
		for range 3 {
			go call(context.Background())
			synctest.Wait()
		}
		require.EqualValues(t, 2, g.Stats().Joins)
		g.Forget("k")
		go call(context.Background()) // after Forget: execution 2, not a join
		synctest.Wait()
		st := g.Stats()
		assert.EqualValues(t, 2, st.Executions)
		assert.EqualValues(t, 2, st.Joins)
		go call(context.Background()) // joins execution 2 under the lock: hot
		go call(context.Background()) // joins execution 2 lock-free
		synctest.Wait()
		close(releases[1])
		close(releases[2])
		synctest.Wait()
		got := []int{<-results, <-results, <-results, <-results, <-results, <-results}
		assert.ElementsMatch(t, []int{1, 1, 1, 2, 2, 2}, got)

		// After execution 2 finished, its hot entry is gone: a new caller starts
		// execution 3.
		go call(context.Background())
		synctest.Wait()
		assert.EqualValues(t, 3, g.Stats().Executions)
		close(releases[3])
		synctest.Wait()
		assert.Equal(t, 3, <-results)

		// Every waiter of a hot execution leaves: it is abandoned, and the next
		// caller starts afresh instead of joining it.
		cancels := make([]context.CancelFunc, 3)
		for i := range cancels {
			ctx, cancel := cancellable()
			cancels[i] = cancel
			go call(ctx)
			synctest.Wait()
		}
		assert.EqualValues(t, 4, g.Stats().Executions)
		for _, cancel := range cancels {
			cancel()
		}
		synctest.Wait()
		st = g.Stats()
		assert.EqualValues(t, 1, st.Abandoned)
		assert.Zero(t, st.InFlight)
		go call(context.Background())
		synctest.Wait()
		assert.EqualValues(t, 5, g.Stats().Executions)
		close(releases[5])
		synctest.Wait()
		assert.Equal(t, 5, <-results)
		assert.Empty(t, results)
	})
}
