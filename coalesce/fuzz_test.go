package coalesce_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/coalesce"
)

// The fuzz target drives a Group with a sequence of operations decoded from the
// input (call with Do or DoChan, with or without a cancellable context; finish an
// execution with a value, an error, a panic or a Goexit; cancel a caller; Forget a
// key) and, after each step, compares everything observable with a simple model:
// which callers have returned and with what, how many times fn ran, whether each
// fn's context is cancelled, and Stats. It runs in a synctest bubble, so each step
// settles deterministically and a caller left hanging is a deadlock.

// outcome is what a caller got back.
type outcome struct {
	val  int
	kind outcomeKind
}

type outcomeKind int

const (
	gotValue outcomeKind = iota + 1
	gotBackendErr
	gotPanic
	gotGoexit
	gotCanceled
	gotNothing // the caller's goroutine ran fn inline and fn called Goexit
)

// Release modes of an execution.
const (
	releaseValue = iota
	releaseErr
	releasePanic
	releaseGoexit
	releaseModes
)

type modelExec struct {
	id, key     int
	waiters     []*modelCaller
	abandonable bool // the first caller's ctx can be cancelled
	inline      bool // fn runs on the first caller's goroutine
	ignoresCtx  bool // fn does not watch its context: it runs until released
	live        bool // neither released nor abandoned: its waiters get its result
	running     bool // fn has not returned
	abandoned   bool
	joined      bool
}

type modelCaller struct {
	key         int
	exec        *modelExec
	cancel      context.CancelFunc
	cancellable bool
	res         chan outcome
	want, got   *outcome
}

// implExec is an execution as fn sees it.
type implExec struct {
	ctx     context.Context
	release chan int
}

type fuzzRun struct {
	t  *testing.T
	g  coalesce.Group[int, int]
	mu sync.Mutex
	fn []*implExec // in the order fn was invoked

	execs   []*modelExec
	current map[int]*modelExec
	callers []*modelCaller
	want    coalesce.Stats
}

func (r *fuzzRun) fnFor(ignoresCtx bool) func(context.Context) (int, error) {
	return func(ctx context.Context) (int, error) {
		e := &implExec{ctx: ctx, release: make(chan int, 1)}
		r.mu.Lock()
		id := len(r.fn)
		r.fn = append(r.fn, e)
		r.mu.Unlock()
		done := ctx.Done()
		if ignoresCtx {
			done = nil
		}
		select {
		case m := <-e.release:
			switch m {
			case releaseErr:
				return 0, errBackend
			case releasePanic:
				panic("fuzz")
			case releaseGoexit:
				runtime.Goexit()
			}
			return 100 + id, nil
		case <-done:
			return 0, ctx.Err()
		}
	}
}

func classify(v int, err error) outcome {
	var pe *coalesce.PanicError
	switch {
	case err == nil:
		return outcome{val: v, kind: gotValue}
	case errors.Is(err, errBackend):
		return outcome{kind: gotBackendErr}
	case errors.As(err, &pe) && pe.Goexit:
		return outcome{kind: gotGoexit}
	case errors.As(err, &pe):
		return outcome{kind: gotPanic}
	case errors.Is(err, context.Canceled):
		return outcome{kind: gotCanceled}
	}
	return outcome{kind: -1}
}

func (r *fuzzRun) call(key int, cancellable, useDo, ignoresCtx bool) {
	c := &modelCaller{key: key, cancellable: cancellable, res: make(chan outcome, 1)}
	ctx := context.Background()
	if cancellable {
		ctx, c.cancel = context.WithCancel(ctx)
	}
	r.callers = append(r.callers, c)
	r.want.Calls++
	if e := r.current[key]; e != nil {
		e.waiters = append(e.waiters, c)
		e.joined = true
		c.exec = e
		r.want.Joins++
	} else {
		e := &modelExec{id: len(r.execs), key: key, waiters: []*modelCaller{c}, live: true, running: true,
			abandonable: cancellable, inline: useDo && !cancellable, ignoresCtx: ignoresCtx}
		r.execs = append(r.execs, e)
		r.current[key] = e
		c.exec = e
		r.want.Executions++
		r.want.InFlight++
	}
	fn := r.fnFor(ignoresCtx)
	if useDo {
		go func() {
			returned := false
			defer func() {
				if !returned {
					c.res <- outcome{kind: gotNothing}
				}
			}()
			v, err := r.g.Do(ctx, key, fn)
			returned = true
			c.res <- classify(v, err)
		}()
		return
	}
	ch := r.g.DoChan(ctx, key, fn)
	go func() {
		res := <-ch
		c.res <- classify(res.Val, res.Err)
	}()
}

func (r *fuzzRun) release(e *modelExec, mode int) {
	r.mu.Lock()
	impl := r.fn[e.id]
	r.mu.Unlock()
	impl.release <- mode
	e.live, e.running = false, false
	r.want.InFlight--
	if r.current[e.key] == e {
		delete(r.current, e.key)
	}
	want := map[int]outcome{
		releaseValue:  {val: 100 + e.id, kind: gotValue},
		releaseErr:    {kind: gotBackendErr},
		releasePanic:  {kind: gotPanic},
		releaseGoexit: {kind: gotGoexit},
	}[mode]
	if mode >= releasePanic {
		r.want.Panics++
	}
	for i, c := range e.waiters {
		w := want
		if i == 0 && e.inline && mode == releaseGoexit {
			// fn ran on the first caller's goroutine (whose ctx cannot be
			// cancelled, so it is still waiters[0]): Goexit ends it.
			w = outcome{kind: gotNothing}
		}
		c.want = &w
	}
	e.waiters = nil
}

func (r *fuzzRun) cancel(c *modelCaller) {
	if !c.cancellable {
		return
	}
	c.cancel()
	if c.want != nil {
		return // already has its result
	}
	c.want = &outcome{kind: gotCanceled}
	r.want.CancelledWaiters++
	e := c.exec
	for i, w := range e.waiters {
		if w == c {
			e.waiters = append(e.waiters[:i], e.waiters[i+1:]...)
			break
		}
	}
	if len(e.waiters) == 0 && e.abandonable {
		e.live, e.abandoned = false, true
		r.want.Abandoned++
		if !e.ignoresCtx {
			e.running = false // fn returns ctx.Err()
			r.want.InFlight--
		}
		if r.current[e.key] == e {
			delete(r.current, e.key)
		}
	}
}

func (r *fuzzRun) forget(key int) {
	if r.current[key] != nil {
		delete(r.current, key)
		r.want.Forgets++
	}
	r.g.Forget(key)
}

// check compares the group with the model; the bubble has settled.
func (r *fuzzRun) check(step int) {
	t := r.t
	for i, c := range r.callers {
		select {
		case o := <-c.res:
			require.Nil(t, c.got, "step %d: caller %d returned twice", step, i)
			c.got = &o
		default:
		}
		require.Equal(t, c.want, c.got, "step %d: caller %d", step, i)
	}
	r.mu.Lock()
	require.Len(t, r.fn, len(r.execs), "step %d: executions of fn", step)
	for i, e := range r.execs {
		// A live execution's context is not cancelled; an abandoned one's is.
		// (Once fn returned, the group releases its context: checked by
		// TestFnContextReleasedAfterReturn, not here.)
		if e.running || e.abandoned {
			require.Equal(t, e.abandoned, r.fn[i].ctx.Err() != nil, "step %d: exec %d context cancelled", step, i)
		}
	}
	r.mu.Unlock()
	require.Equal(t, r.want, r.g.Stats(), "step %d: stats", step)
}

func runOps(t *testing.T, data []byte) {
	synctest.Test(t, func(t *testing.T) {
		r := &fuzzRun{t: t, current: make(map[int]*modelExec)}
		for step, b := range data {
			op, arg := b%4, int(b/4)
			switch op {
			case 0:
				r.call(arg%3, arg&4 != 0, arg&8 != 0, arg&16 != 0)
			case 1:
				var running []*modelExec
				for _, e := range r.execs {
					if e.running {
						running = append(running, e)
					}
				}
				if len(running) > 0 {
					r.release(running[arg%len(running)], (arg/8)%releaseModes)
				}
			case 2:
				if len(r.callers) > 0 {
					r.cancel(r.callers[arg%len(r.callers)])
				}
			case 3:
				r.forget(arg % 3)
			}
			synctest.Wait()
			r.check(step)
		}
		// Finish what is left: every caller must return.
		for _, e := range r.execs {
			if e.running {
				r.release(e, releaseValue)
			}
		}
		synctest.Wait()
		r.check(len(data))
		for i, c := range r.callers {
			require.NotNil(t, c.got, "caller %d never returned", i)
		}
		require.Zero(t, r.g.Stats().InFlight)
	})
}

func FuzzOps(f *testing.F) {
	f.Add([]byte{0, 0, 1})                 // one call, released
	f.Add([]byte{4 * 4, 4 * 4, 2, 6})      // two cancellable callers leave: abandoned
	f.Add([]byte{0, 32, 3, 0, 1, 1})       // Forget between callers
	f.Add([]byte{20 * 4, 2, 20 * 4, 1, 1}) // abandoned fn that ignores ctx; new caller starts fresh
	f.Add([]byte{8 * 4, 0, 4 * 4, 2 + 4*2, 1 + 4*8*2})
	f.Add([]byte{4 * 12, 4 * 12, 1 + 4*8*3, 0, 1 + 4*8*2})
	f.Add([]byte{0, 0, 0, 1 + 4*8*3, 12 * 4, 2 + 4*3, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64 {
			data = data[:64]
		}
		runOps(t, data)
	})
}
