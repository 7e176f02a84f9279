package coalesce_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/coalesce"
	"github.com/tierkit/tierkit/internal/leak"
)

var errBackend = errors.New("backend down")

// cancellable returns a context that can be cancelled, so that fn runs on its own
// goroutine, and its cancel func.
func cancellable() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}

func TestDoOutcomes(t *testing.T) {
	tests := []struct {
		name      string
		ctx       func() context.Context
		fn        func(context.Context) (int, error)
		wantVal   int
		wantErr   error // errors.Is target, nil for none
		wantPanic any   // PanicError.Value, when a panic is expected
		wantExit  bool  // PanicError.Goexit
	}{
		{
			name:    "value",
			ctx:     context.Background,
			fn:      func(context.Context) (int, error) { return 7, nil },
			wantVal: 7,
		},
		{
			name:    "error",
			ctx:     context.Background,
			fn:      func(context.Context) (int, error) { return 0, errBackend },
			wantErr: errBackend,
		},
		{
			name:      "panic inline",
			ctx:       context.Background,
			fn:        func(context.Context) (int, error) { panic("boom") },
			wantPanic: "boom",
		},
		{
			name:      "panic on goroutine",
			ctx:       func() context.Context { ctx, _ := cancellable(); return ctx },
			fn:        func(context.Context) (int, error) { panic("boom") },
			wantPanic: "boom",
		},
		{
			name:      "panic with error",
			ctx:       context.Background,
			fn:        func(context.Context) (int, error) { panic(errBackend) },
			wantErr:   errBackend,
			wantPanic: errBackend,
		},
		{
			name:     "goexit on goroutine",
			ctx:      func() context.Context { ctx, _ := cancellable(); return ctx },
			fn:       func(context.Context) (int, error) { runtime.Goexit(); return 0, nil },
			wantErr:  coalesce.ErrGoexit,
			wantExit: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var g coalesce.Group[string, int]
				v, err := g.Do(tt.ctx(), "k", tt.fn)
				assert.Equal(t, tt.wantVal, v)
				if tt.wantErr != nil {
					assert.ErrorIs(t, err, tt.wantErr)
				}
				var pe *coalesce.PanicError
				if tt.wantPanic != nil || tt.wantExit {
					require.ErrorAs(t, err, &pe)
					assert.Equal(t, tt.wantPanic, pe.Value)
					assert.Equal(t, tt.wantExit, pe.Goexit)
					assert.NotEmpty(t, pe.Stack)
					assert.EqualValues(t, 1, g.Stats().Panics)
				} else {
					assert.False(t, errors.As(err, &pe))
				}
				if tt.wantErr == nil && tt.wantPanic == nil {
					assert.NoError(t, err)
				}
				// The key is free again: a new call runs fn afresh.
				v, err = g.Do(context.Background(), "k", func(context.Context) (int, error) { return 1, nil })
				assert.NoError(t, err)
				assert.Equal(t, 1, v)
				st := g.Stats()
				assert.EqualValues(t, 2, st.Executions)
				assert.Zero(t, st.InFlight)
			})
		})
	}
}

func TestPanicNil(t *testing.T) {
	var g coalesce.Group[int, int]
	_, err := g.Do(context.Background(), 1, func(context.Context) (int, error) { panic(nil) })
	var pe *coalesce.PanicError
	require.ErrorAs(t, err, &pe)
	var pne *runtime.PanicNilError
	assert.ErrorAs(t, err, &pne)
	assert.False(t, pe.Goexit)
}

// TestStampede: 1,000 callers of one key while fn is in flight -> exactly one
// execution, and every caller gets its result.
func TestStampede(t *testing.T) {
	for _, name := range []string{"background", "cancellable"} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const n = 1000
				var g coalesce.Group[string, int]
				release := make(chan struct{})
				runs := 0
				fn := func(context.Context) (int, error) {
					runs++
					<-release
					return 42, nil
				}
				ctx := context.Background()
				if name == "cancellable" {
					var cancel context.CancelFunc
					ctx, cancel = cancellable()
					defer cancel()
				}
				got := make([]int, n)
				var wg sync.WaitGroup
				for i := range n {
					wg.Go(func() {
						v, err := g.Do(ctx, "hot", fn)
						assert.NoError(t, err)
						got[i] = v
					})
				}
				synctest.Wait() // every caller is parked on the one execution
				st := g.Stats()
				assert.EqualValues(t, n, st.Calls)
				assert.EqualValues(t, 1, st.Executions)
				assert.EqualValues(t, n-1, st.Joins)
				assert.EqualValues(t, 1, st.InFlight)
				close(release)
				wg.Wait()
				assert.Equal(t, 1, runs)
				for i := range n {
					assert.Equal(t, 42, got[i])
				}
				assert.InDelta(t, float64(n-1)/n, g.Stats().JoinRatio(), 1e-9)
				assert.InDelta(t, float64(n), g.Stats().CallsPerExecution(), 1e-9)
			})
		})
	}
}

// TestCallerLeavesEarly: a caller whose ctx ends returns ctx.Err() at once; the
// execution goes on, uncancelled, for the callers still waiting.
func TestCallerLeavesEarly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g coalesce.Group[string, string]
		release := make(chan struct{})
		var fnCtx context.Context
		fn := func(ctx context.Context) (string, error) {
			fnCtx = ctx
			<-release
			return "v", ctx.Err()
		}
		ctxA, cancelA := cancellable()
		ctxB, cancelB := cancellable()
		defer cancelB()
		var wg sync.WaitGroup
		var errA, errB error
		var valB string
		wg.Go(func() { _, errA = g.Do(ctxA, "k", fn) })
		synctest.Wait()
		wg.Go(func() { valB, errB = g.Do(ctxB, "k", fn) })
		synctest.Wait()
		cancelA()
		synctest.Wait()
		assert.ErrorIs(t, errA, context.Canceled)
		assert.NoError(t, fnCtx.Err(), "fn's context must outlive the first caller")
		close(release)
		wg.Wait()
		assert.NoError(t, errB)
		assert.Equal(t, "v", valB)
		st := g.Stats()
		assert.EqualValues(t, 1, st.CancelledWaiters)
		assert.EqualValues(t, 0, st.Abandoned)
	})
}

type ctxKey struct{}

// TestLastWaiterLeaves: when every waiter has left, fn's context is cancelled and the
// key is free before that, so a new caller starts a fresh execution rather than
// joining the cancelled one (tailscale TestDoChanContextNewCallerAfterCancel).
func TestLastWaiterLeaves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g coalesce.Group[string, int]
		started := make(chan context.Context, 1)
		first := func(ctx context.Context) (int, error) {
			started <- ctx
			<-ctx.Done()
			return 0, ctx.Err()
		}
		ctx, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "trace-1"))
		errc := make(chan error, 2)
		for range 2 {
			go func() { _, err := g.Do(ctx, "k", first); errc <- err }()
		}
		fnCtx := <-started
		synctest.Wait()
		assert.Equal(t, "trace-1", fnCtx.Value(ctxKey{}), "fn keeps the caller's values")
		_, hasDeadline := fnCtx.Deadline()
		assert.False(t, hasDeadline)
		cancel()
		assert.ErrorIs(t, <-errc, context.Canceled)
		assert.ErrorIs(t, <-errc, context.Canceled)
		assert.ErrorIs(t, fnCtx.Err(), context.Canceled, "fn's context is cancelled once every waiter left")

		v, err := g.Do(context.Background(), "k", func(ctx context.Context) (int, error) {
			return 2, ctx.Err()
		})
		assert.NoError(t, err, "a later caller must not join the cancelled execution")
		assert.Equal(t, 2, v)
		st := g.Stats()
		assert.EqualValues(t, 2, st.Executions)
		assert.EqualValues(t, 1, st.Abandoned)
		assert.EqualValues(t, 2, st.CancelledWaiters)
	})
}

func TestDoneOnEntry(t *testing.T) {
	var g coalesce.Group[string, int]
	ctx, cancel := cancellable()
	cancel()
	ran := false
	fn := func(context.Context) (int, error) { ran = true; return 1, nil }
	_, err := g.Do(ctx, "k", fn)
	assert.ErrorIs(t, err, context.Canceled)
	r := <-g.DoChan(ctx, "k", fn)
	assert.ErrorIs(t, r.Err, context.Canceled)
	assert.False(t, ran)
	st := g.Stats()
	assert.EqualValues(t, 2, st.Calls)
	assert.EqualValues(t, 2, st.CancelledWaiters)
	assert.Zero(t, st.Executions)
}

// TestForget: callers already waiting keep their call; new callers start fresh.
func TestForget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g coalesce.Group[string, int]
		release := make(chan struct{})
		old := func(context.Context) (int, error) { <-release; return 1, nil }
		var wg sync.WaitGroup
		got := make([]int, 2)
		for i := range 2 {
			wg.Go(func() { got[i], _ = g.Do(context.Background(), "k", old) })
		}
		synctest.Wait()
		g.Forget("k")
		g.Forget("k") // nothing in flight any more: no-op
		v, err := g.Do(context.Background(), "k", func(context.Context) (int, error) { return 2, nil })
		require.NoError(t, err)
		assert.Equal(t, 2, v, "a caller after Forget starts a fresh execution")
		close(release)
		wg.Wait()
		assert.Equal(t, []int{1, 1}, got, "waiters keep their call")
		st := g.Stats()
		assert.EqualValues(t, 2, st.Executions)
		assert.EqualValues(t, 1, st.Forgets)
		assert.Zero(t, st.InFlight)
	})
}

func TestDoChan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g coalesce.Group[string, int]
		release := make(chan struct{})
		fn := func(ctx context.Context) (int, error) {
			select {
			case <-release:
				return 5, nil
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		}
		ctx1, cancel1 := cancellable()
		c1 := g.DoChan(ctx1, "k", fn)
		c2 := g.DoChan(context.Background(), "k", fn)
		ctx3, cancel3 := cancellable()
		defer cancel3()
		c3 := g.DoChan(ctx3, "k", fn)
		synctest.Wait()
		cancel1()
		r1 := <-c1
		assert.ErrorIs(t, r1.Err, context.Canceled, "a DoChan caller leaves through its ctx")
		assert.False(t, r1.Shared)
		close(release)
		for _, c := range []<-chan coalesce.Result[int]{c2, c3} {
			r := <-c
			assert.NoError(t, r.Err)
			assert.Equal(t, 5, r.Val)
			assert.True(t, r.Shared)
		}
		synctest.Wait()
		for _, c := range []<-chan coalesce.Result[int]{c1, c2, c3} {
			assert.Empty(t, c, "exactly one result per channel")
		}
		st := g.Stats()
		assert.EqualValues(t, 1, st.Executions)
		assert.EqualValues(t, 2, st.Joins)
		assert.EqualValues(t, 1, st.CancelledWaiters)
	})
}

// TestDoChanAllLeave: DoChan waiters leaving through ctx abandon the execution.
func TestDoChanAllLeave(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g coalesce.Group[string, int]
		fnDone := make(chan error, 1)
		fn := func(ctx context.Context) (int, error) {
			<-ctx.Done()
			fnDone <- ctx.Err()
			return 0, ctx.Err()
		}
		ctx, cancel := cancellable()
		c1 := g.DoChan(ctx, "k", fn)
		c2 := g.DoChan(ctx, "k", fn)
		synctest.Wait()
		cancel()
		assert.ErrorIs(t, (<-c1).Err, context.Canceled)
		assert.ErrorIs(t, (<-c2).Err, context.Canceled)
		assert.ErrorIs(t, <-fnDone, context.Canceled)
		r := <-g.DoChan(context.Background(), "k", func(context.Context) (int, error) { return 9, nil })
		assert.Equal(t, coalesce.Result[int]{Val: 9}, r)
		assert.EqualValues(t, 1, g.Stats().Abandoned)
	})
}

// TestDoChanLeaveInAnyOrder: DoChan waiters leave one at a time, in an order
// that moves the waiters that stay around the call's list of waiters; each
// leaver gets its ctx error, and each waiter that stays gets the result, each
// exactly once.
func TestDoChanLeaveInAnyOrder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		leave []int // indices of the waiters that leave, in order
	}{
		{name: "first to last", leave: []int{0, 1, 2, 3, 4, 5}},
		{name: "last to first", leave: []int{7, 6, 5, 4, 3, 2}},
		{name: "interleaved", leave: []int{0, 5, 2, 7, 1}},
		{name: "all but one", leave: []int{3, 0, 7, 1, 6, 2, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var g coalesce.Group[string, int]
				release := make(chan struct{})
				fn := func(context.Context) (int, error) { <-release; return 5, nil }
				chans := make([]<-chan coalesce.Result[int], 8)
				cancels := make([]context.CancelFunc, len(chans))
				for i := range chans {
					var ctx context.Context
					ctx, cancels[i] = cancellable()
					defer cancels[i]()
					chans[i] = g.DoChan(ctx, "k", fn)
				}
				left := map[int]bool{}
				for _, i := range tc.leave {
					cancels[i]()
					assert.ErrorIs(t, (<-chans[i]).Err, context.Canceled, "waiter %d left", i)
					left[i] = true
				}
				close(release)
				synctest.Wait()
				for i, c := range chans {
					if left[i] {
						assert.Empty(t, c, "waiter %d left: no second result", i)
						continue
					}
					require.Len(t, c, 1, "waiter %d stayed", i)
					assert.Equal(t, 5, (<-c).Val)
				}
				assert.EqualValues(t, len(tc.leave), g.Stats().CancelledWaiters)
			})
		})
	}
}

// TestMixedDoAndDoChan: Do and DoChan callers share one execution.
func TestMixedDoAndDoChan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g coalesce.Group[int, string]
		release := make(chan struct{})
		fn := func(context.Context) (string, error) { <-release; return "x", nil }
		ch := g.DoChan(context.Background(), 1, fn)
		var v string
		done := make(chan struct{})
		go func() { v, _ = g.Do(context.Background(), 1, fn); close(done) }()
		synctest.Wait()
		close(release)
		<-done
		assert.Equal(t, "x", v)
		assert.Equal(t, coalesce.Result[string]{Val: "x", Shared: true}, <-ch)
		assert.EqualValues(t, 1, g.Stats().Executions)
	})
}

// TestGoexitInline: with a caller context that cannot be cancelled fn runs on the
// first caller's goroutine; Goexit ends that goroutine, and the joined callers get
// the error rather than hanging.
func TestGoexitInline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g coalesce.Group[string, int]
		release := make(chan struct{})
		fn := func(context.Context) (int, error) { <-release; runtime.Goexit(); return 0, nil }
		leaderReturned := false
		exited := make(chan struct{})
		go func() {
			defer close(exited)
			_, _ = g.Do(context.Background(), "k", fn)
			leaderReturned = true
		}()
		synctest.Wait()
		errc := make(chan error, 1)
		go func() { _, err := g.Do(context.Background(), "k", fn); errc <- err }()
		synctest.Wait()
		close(release)
		<-exited
		assert.False(t, leaderReturned, "Goexit ends the goroutine that ran fn")
		err := <-errc
		assert.ErrorIs(t, err, coalesce.ErrGoexit)
		assert.Contains(t, err.Error(), "Goexit")
	})
}

func TestPanicErrorMessage(t *testing.T) {
	err := error(&coalesce.PanicError{Value: "boom", Stack: []byte("stack")})
	assert.Contains(t, err.Error(), "boom")
	assert.Contains(t, err.Error(), "stack")
	assert.NoError(t, errors.Unwrap(err))
	assert.Equal(t, fmt.Sprint(coalesce.Stats{}.JoinRatio(), coalesce.Stats{}.CallsPerExecution()), "0 0")
}

// TestNoGoroutineLeft: the goroutines the group starts (fn for cancellable or
// DoChan callers, ctx watchers of DoChan callers) all exit, whether the call
// finishes, is abandoned, or its callers leave, in real time (outside synctest).
func TestNoGoroutineLeft(t *testing.T) {
	leak.Check(t)
	var g coalesce.Group[int, int]
	fn := func(ctx context.Context) (int, error) {
		runtime.Gosched()
		return 1, ctx.Err()
	}
	block := func(ctx context.Context) (int, error) { <-ctx.Done(); return 0, ctx.Err() }
	var wg sync.WaitGroup
	for i := range 200 {
		ctx, cancel := cancellable()
		wg.Go(func() {
			defer cancel()
			switch i % 4 {
			case 0:
				_, _ = g.Do(ctx, i%7, fn)
			case 1:
				<-g.DoChan(ctx, i%7, fn)
			case 2: // every caller leaves: abandoned
				ch := g.DoChan(ctx, 100+i, block)
				cancel()
				<-ch
			case 3:
				<-g.DoChan(context.Background(), i%7, fn)
			}
		})
	}
	wg.Wait()
	// The abandoned fns may still be returning; leak.Check waits for them.
	assert.EqualValues(t, 50, g.Stats().Abandoned)
}

// TestPending: Pending reports an execution a new caller would join: while it
// runs, not after it finishes, and not once it was forgotten.
func TestPending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g coalesce.Group[string, int]
		assert.False(t, g.Pending("k"), "nothing started")
		release := make(chan struct{})
		ch := g.DoChan(context.Background(), "k", func(context.Context) (int, error) { <-release; return 1, nil })
		synctest.Wait()
		assert.True(t, g.Pending("k"), "running")
		assert.False(t, g.Pending("other"))
		g.Forget("k")
		assert.False(t, g.Pending("k"), "forgotten")
		close(release)
		assert.Equal(t, 1, (<-ch).Val)
		ch = g.DoChan(context.Background(), "k", func(context.Context) (int, error) { return 2, nil })
		<-ch
		synctest.Wait()
		assert.False(t, g.Pending("k"), "finished")
	})
}
