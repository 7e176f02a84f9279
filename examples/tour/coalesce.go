package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tierkit/tierkit/coalesce"
)

func init() {
	sections = append(sections, section{
		order: 10,
		name:  "coalesce",
		title: "identical in-flight reads share one backend fetch",
		run:   tourCoalesce,
	})
}

func tourCoalesce(w io.Writer) error {
	for _, step := range []func(io.Writer) error{
		coalesceStampede, coalesceOpenArrivals, coalesceCancel, coalescePanic,
	} {
		if err := step(w); err != nil {
			return err
		}
	}
	return nil
}

// coalesceStampede: 10,000 readers of one key arrive while its fetch is in flight.
// The backend holds its answer until every reader has called (it watches the
// group's counters), so the figure shows what coalescing does to a true stampede.
func coalesceStampede(w io.Writer) error {
	const readers = 10_000
	var g coalesce.Group[string, string]
	var fetches atomic.Int64
	var waitErr atomic.Pointer[error]
	fetch := func(ctx context.Context) (string, error) {
		fetches.Add(1)
		// The backend round trip, long enough for all readers.
		if err := waitProgress(tourWait, fmt.Sprintf("%d readers to call", readers), readers,
			func() uint64 { return g.Stats().Calls }); err != nil {
			waitErr.Store(&err)
			return "", err
		}
		return "profile-of-user-42", nil
	}
	start := time.Now()
	var wg sync.WaitGroup
	var wrong atomic.Int64
	for range readers {
		wg.Go(func() {
			if v, err := g.Do(context.Background(), "user:42", fetch); err != nil || v != "profile-of-user-42" {
				wrong.Add(1)
			}
		})
	}
	wg.Wait()
	if err := waitErr.Load(); err != nil {
		return *err
	}
	if wrong.Load() != 0 {
		return fmt.Errorf("%d readers got a wrong result", wrong.Load())
	}
	st := g.Stats()
	if err := verify(coalesceStampedeClaims(readers, st, fetches.Load())...); err != nil {
		return err
	}
	fmt.Fprintf(w, "   %d concurrent reads of one hot key -> %d backend %s; join ratio %.2f%%, %v\n",
		st.Calls, fetches.Load(), coalescePlural(fetches.Load(), "fetch", "fetches"), 100*st.JoinRatio(),
		time.Since(start).Round(time.Millisecond))
	return nil
}

// coalesceStampedeClaims is what the stampede line and the section's title
// state: every reader called, and all of them shared one backend fetch.
func coalesceStampedeClaims(readers int, st coalesce.Stats, fetches int64) []claim {
	return []claim{
		{st.Calls == uint64(readers), fmt.Sprintf("%d reads counted, %d made", st.Calls, readers)},
		{fetches == 1, fmt.Sprintf("%d concurrent reads of one key share 1 backend fetch, not %d", readers, fetches)},
		{st.Joins == uint64(readers-1), fmt.Sprintf("%d of %d reads joined the fetch, not %d", readers-1, readers, st.Joins)},
	}
}

// coalesceOpenArrivals: the same 10,000 reads arrive over time from 100 clients
// (100 reads each, one after the other) against a backend with 200µs of latency:
// with and without coalescing.
func coalesceOpenArrivals(w io.Writer) error {
	const clients, perClient, latency = 100, 100, 200 * time.Microsecond
	var fetches atomic.Int64
	backend := func(ctx context.Context) (int, error) {
		fetches.Add(1)
		time.Sleep(latency) // simulated network and storage time
		return 1, nil
	}
	run := func(read func() error) (time.Duration, error) {
		fetches.Store(0)
		start := time.Now()
		var wg sync.WaitGroup
		var failed atomic.Int64
		for range clients {
			wg.Go(func() {
				for range perClient {
					if read() != nil {
						failed.Add(1)
					}
				}
			})
		}
		wg.Wait()
		if failed.Load() > 0 {
			return 0, fmt.Errorf("%d reads failed", failed.Load())
		}
		return time.Since(start), nil
	}
	var g coalesce.Group[string, int]
	took, err := run(func() error { _, err := g.Do(context.Background(), "hot", backend); return err })
	if err != nil {
		return err
	}
	coalesced := fetches.Load()
	tookRaw, err := run(func() error { _, err := backend(context.Background()); return err })
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "   %d reads from %d clients, backend latency %v: %d backend fetches with coalesce (%.0f reads/fetch, %v) vs %d without (%v)\n",
		clients*perClient, clients, latency, coalesced, float64(clients*perClient)/float64(coalesced),
		took.Round(time.Millisecond), fetches.Load(), tookRaw.Round(time.Millisecond))
	return nil
}

// coalesceCancel: a caller that gives up leaves at once without disturbing the
// others; when every caller has gone, the fetch is cancelled and the next caller
// starts afresh.
func coalesceCancel(w io.Writer) error {
	var g coalesce.Group[string, string]
	release := make(chan struct{})
	fetchCtx := make(chan context.Context, 1)
	slow := func(ctx context.Context) (string, error) {
		fetchCtx <- ctx
		select {
		case <-release:
			return "v1", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	impatientCtx, giveUp := context.WithCancel(context.Background())
	defer giveUp()
	impatient := make(chan error, 1)
	go func() { _, err := g.Do(impatientCtx, "k", slow); impatient <- err }()
	fctx, err := recvWithin(tourWait, "the fetch to start", fetchCtx)
	if err != nil {
		return err
	}
	patientCtx, cancelPatient := context.WithCancel(context.Background())
	defer cancelPatient()
	patient := g.DoChan(patientCtx, "k", slow)
	if err := waitFor(tourWait, "the patient caller to join", func() bool { return g.Stats().Joins >= 1 }); err != nil {
		return err
	}
	start := time.Now()
	giveUp()
	impatientErr, err := recvWithin(tourWait, "the impatient caller to return", impatient)
	if err != nil {
		return err
	}
	left := time.Since(start)
	live := fctx.Err() == nil
	close(release)
	r, err := recvWithin(tourWait, "the patient caller's result", patient)
	if err != nil {
		return err
	}
	if err := verify(coalesceCancelClaims(impatientErr, live, r)...); err != nil {
		return err
	}
	fmt.Fprintf(w, "   impatient caller cancelled: returned %v after %v; shared fetch's context still live: %v\n",
		impatientErr, left.Round(time.Microsecond), live)
	fmt.Fprintf(w, "   patient caller got %q (shared: %v)\n", r.Val, r.Shared)
	return coalesceAbandon(w, &g)
}

// coalesceCancelClaims is what the cancel lines state: the caller that gave
// up returned its own context's error, the shared fetch's context was still
// live after it left (live, read before the fetch was released), and the
// caller that stayed got the fetch's answer, shared.
func coalesceCancelClaims(impatientErr error, live bool, r coalesce.Result[string]) []claim {
	return []claim{
		{errors.Is(impatientErr, context.Canceled),
			fmt.Sprintf("the impatient caller returned context canceled, not %v", impatientErr)},
		{live, "the shared fetch's context still live after one caller left, not cancelled"},
		{r.Err == nil && r.Val == "v1" && r.Shared,
			fmt.Sprintf("the patient caller got \"v1\" (shared: true), not %q, %v (shared: %v)", r.Val, r.Err, r.Shared)},
	}
}

// coalesceAbandon: every caller of a fetch leaves before it answers; the
// fetch is cancelled and the next caller starts afresh.
func coalesceAbandon(w io.Writer, g *coalesce.Group[string, string]) error {
	fetchCtx := make(chan context.Context, 1)
	hang := func(ctx context.Context) (string, error) { // answers only when cancelled
		fetchCtx <- ctx
		<-ctx.Done()
		return "", ctx.Err()
	}
	a, cancelA := context.WithCancel(context.Background())
	defer cancelA()
	ch := g.DoChan(a, "k2", hang)
	fctx, err := recvWithin(tourWait, "the fetch of k2 to start", fetchCtx)
	if err != nil {
		return err
	}
	cancelA()
	if _, err := recvWithin(tourWait, "the cancelled caller to return", ch); err != nil {
		return err
	}
	if _, err := recvWithin(tourWait, "the abandoned fetch's context to end", fctx.Done()); err != nil {
		return err
	}
	var ran atomic.Bool
	v, err := g.Do(context.Background(), "k2", func(ctx context.Context) (string, error) {
		ran.Store(true)
		return "fresh", ctx.Err()
	})
	st := g.Stats()
	if err := verify(coalesceAbandonClaims(ran.Load(), v, err, st)...); err != nil {
		return err
	}
	fmt.Fprintf(w, "   all callers left: fetch context %v; next caller started a fresh fetch -> %q, %v (abandoned %d, cancelled waiters %d)\n",
		context.Cause(fctx), v, err, st.Abandoned, st.CancelledWaiters)
	return nil
}

// coalesceAbandonClaims is what the abandon line states: the fetch every
// caller left was counted abandoned, and the next caller of the key ran a
// fresh fetch (ran) and got its answer, rather than joining the cancelled one.
func coalesceAbandonClaims(ran bool, v string, err error, st coalesce.Stats) []claim {
	return []claim{
		{ran && v == "fresh" && err == nil,
			fmt.Sprintf("next caller started a fresh fetch -> \"fresh\", <nil>, not %q, %v (a fresh fetch ran: %v)", v, err, ran)},
		{st.Abandoned >= 1, "the fetch all callers left is counted abandoned, not 0"},
	}
}

// coalescePanic: a panicking fetch reaches every waiter as an error.
func coalescePanic(w io.Writer) error {
	var g coalesce.Group[string, int]
	release := make(chan struct{})
	boom := func(context.Context) (int, error) {
		<-release
		panic("backend client bug")
	}
	const waiters = 50
	errs := make(chan error, waiters)
	for range waiters {
		go func() { _, err := g.Do(context.Background(), "k", boom); errs <- err }()
	}
	if err := waitFor(tourWait, fmt.Sprintf("%d waiters to call", waiters),
		func() bool { return g.Stats().Calls >= waiters }); err != nil {
		return err
	}
	close(release)
	got := 0
	for range waiters {
		err, werr := recvWithin(tourWait, "every waiter of the panicking fetch to return", errs)
		if werr != nil {
			return werr
		}
		if pe := (*coalesce.PanicError)(nil); errors.As(err, &pe) && pe.Value == "backend client bug" {
			got++
		}
	}
	if err := verify(claim{got == waiters, fmt.Sprintf("%d of %d waiters got the *PanicError", got, waiters)},
		claim{g.Stats().Panics == 1, fmt.Sprintf("1 panic counted, not %d", g.Stats().Panics)}); err != nil {
		return err
	}
	fmt.Fprintf(w, "   fn panicked: %d of %d waiters got a *PanicError (value and stack), process still up; panics counted: %d\n",
		got, waiters, g.Stats().Panics)
	return nil
}

func coalescePlural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
