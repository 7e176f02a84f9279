package coalesce_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tierkit/tierkit/coalesce"
)

// Many concurrent readers of one key cause a single backend fetch.
func Example() {
	var g coalesce.Group[string, string]
	var fetches atomic.Int32
	release := make(chan struct{})
	fetch := func(ctx context.Context) (string, error) {
		fetches.Add(1)
		<-release // the backend round trip
		return "value-of-user:42", nil
	}

	// One reader starts the fetch; the 99 others arrive while it is in flight.
	var wg sync.WaitGroup
	results := make([]string, 100)
	for i := range results {
		wg.Go(func() { results[i], _ = g.Do(context.Background(), "user:42", fetch) })
	}
	// Release the fetch once all 100 calls have started or joined it (a call is
	// counted when it attaches to the execution, before it waits).
	waitUntil("all 100 calls attached", func() bool { return g.Stats().Calls == 100 })
	close(release)
	wg.Wait()

	st := g.Stats()
	fmt.Println("fetches:", fetches.Load())
	fmt.Println("calls:", st.Calls, "executions:", st.Executions, "joins:", st.Joins)
	fmt.Println("every reader got:", results[0] == results[99], results[99])
	// Output:
	// fetches: 1
	// calls: 100 executions: 1 joins: 99
	// every reader got: true value-of-user:42
}

// A caller whose context ends leaves at once; the fetch goes on for the others.
func ExampleGroup_Do_cancel() {
	var g coalesce.Group[string, int]
	release := make(chan struct{})
	fetch := func(ctx context.Context) (int, error) {
		select {
		case <-release:
			return 7, nil
		case <-ctx.Done(): // only when every caller has left
			return 0, ctx.Err()
		}
	}

	patient := g.DoChan(context.Background(), "k", fetch)
	ctx, cancel := context.WithCancel(context.Background())
	impatient := make(chan error)
	go func() { _, err := g.Do(ctx, "k", fetch); impatient <- err }()
	waitUntil("the impatient caller joined", func() bool { return g.Stats().Joins == 1 })
	cancel()
	fmt.Println("impatient caller:", <-impatient)
	close(release)
	r := <-patient
	fmt.Println("patient caller:", r.Val, r.Err, "shared:", r.Shared)
	// Output:
	// impatient caller: context canceled
	// patient caller: 7 <nil> shared: true
}

// A panic in fn reaches the caller as a *PanicError instead of crashing the process.
func ExamplePanicError() {
	var g coalesce.Group[int, int]
	_, err := g.Do(context.Background(), 1, func(context.Context) (int, error) {
		var cfg []int
		return cfg[3], nil // panics: index out of range

	})
	var pe *coalesce.PanicError
	fmt.Println(errors.As(err, &pe), pe.Value, "panics:", g.Stats().Panics)
	// Output:
	// true runtime error: index out of range [3] with length 0 panics: 1
}

// Forget makes the next caller start afresh, for example after a write.
func ExampleGroup_Forget() {
	var g coalesce.Group[string, string]
	release := make(chan struct{})
	stale := g.DoChan(context.Background(), "k", func(context.Context) (string, error) {
		<-release
		return "old", nil
	})
	g.Forget("k") // a write happened: the in-flight read may be stale
	fresh, _ := g.Do(context.Background(), "k", func(context.Context) (string, error) { return "new", nil })
	close(release)
	fmt.Println((<-stale).Val, fresh, "executions:", g.Stats().Executions)
	// Output:
	// old new executions: 2
}

// user is what the backend returns.
type user struct {
	id   string
	name string
}

// lookup is the request DoWith passes to loadUser: the data a func literal would
// otherwise capture.
type lookup struct {
	id      string
	backend map[string]string
}

// loadUser is a static fn: a top-level func captures nothing, so a DoWith call
// that joins an execution in flight allocates nothing.
func loadUser(_ context.Context, l lookup) (*user, error) {
	name, ok := l.backend[l.id]
	if !ok {
		return nil, errors.New("no such user")
	}
	return &user{id: l.id, name: name}, nil
}

// DoWith passes the per-call data by value to a static fn instead of capturing it
// in a func literal built for each call.
func ExampleDoWith() {
	var g coalesce.Group[string, *user]
	backend := map[string]string{"42": "Ada"}
	u, err := coalesce.DoWith(&g, context.Background(), "user:42", lookup{"42", backend}, loadUser)
	fmt.Println(u.name, err)
	_, err = coalesce.DoWith(&g, context.Background(), "user:7", lookup{"7", backend}, loadUser)
	fmt.Println(err)
	// Output:
	// Ada <nil>
	// no such user
}

// waitUntil yields until cond holds, for at most 10 s of wall time (ample for
// -race on a loaded machine). An example cannot fail through a testing.T: on
// timeout it prints what it waited for, so that the Output check fails with
// that line instead of the run hanging until go test's timeout.
func waitUntil(what string, cond func() bool) {
	for deadline := time.Now().Add(10 * time.Second); !cond(); runtime.Gosched() {
		if time.Now().After(deadline) {
			fmt.Println("timed out waiting:", what)
			return
		}
	}
}
