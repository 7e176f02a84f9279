package main

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"
)

// claim is a fact a section prints as an outcome ("-> 1 backend fetch",
// "none queued"): the section checks it before printing, so a package that
// stops doing what the line says fails the tour instead of being described
// wrongly.
type claim struct {
	holds bool
	what  string // the fact, as the printed line states it
}

// verify returns an error naming every claim that does not hold, or nil.
func verify(cs ...claim) error {
	var failed []string
	for _, c := range cs {
		if !c.holds {
			failed = append(failed, c.what)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return errors.New("claim does not hold: " + strings.Join(failed, "; "))
}

// tourWait bounds every wait of the tour on a package under demonstration:
// a package that never does what a section waits for fails the section with
// what it waited for instead of hanging the tour.
const tourWait = 5 * time.Second

// waitFor yields until cond holds, or returns an error naming what it waited
// for once d has passed.
func waitFor(d time.Duration, what string, cond func() bool) error {
	for deadline := time.Now().Add(d); !cond(); {
		if time.Now().After(deadline) {
			return fmt.Errorf("waited %v for %s", d, what)
		}
		runtime.Gosched()
	}
	return nil
}

// waitProgress yields until count reaches want, or returns an error naming
// what it waited for once count has not moved for d. It waits for a crowd of
// goroutines to arrive: thousands of them can take longer than d in all on a
// loaded machine (under the race detector beside other tests), still
// arriving, where a package that stopped counting them stalls.
func waitProgress(d time.Duration, what string, want uint64, count func() uint64) error {
	// The clock is read after a count that moved and before one that did
	// not: a goroutine descheduled between the two reads (a busy machine)
	// is no time without progress unless the count was read again after it.
	last, deadline := count(), time.Now().Add(d)
	for last < want {
		runtime.Gosched()
		now := time.Now()
		if n := count(); n != last {
			last, deadline = n, time.Now().Add(d)
		} else if now.After(deadline) {
			return fmt.Errorf("waited %v with no progress for %s (%d of %d)", d, what, last, want)
		}
	}
	return nil
}

// recvWithin receives from ch, or returns an error naming what it waited for
// once d has passed.
func recvWithin[T any](d time.Duration, what string, ch <-chan T) (T, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case v := <-ch:
		return v, nil
	case <-t.C:
		var zero T
		return zero, fmt.Errorf("waited %v for %s", d, what)
	}
}

// waitGroupWithin waits for wg, or returns an error naming what it waited
// for once d has passed (the goroutines it waited for are left running).
func waitGroupWithin(d time.Duration, what string, wg *sync.WaitGroup) error {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	_, err := recvWithin(d, what, done)
	return err
}
