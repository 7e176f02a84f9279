package batcher

import (
	"errors"
	"fmt"
)

// ErrOverloaded is returned by [Batcher.Do] when MaxInFlight batches are already in
// the backend: the item is rejected at once (or, if its batch closed while the cap
// was reached, when the batch closes) and was never sent. The backend is slower than
// the offered load; the caller should back off or shed, not retry at once.
var ErrOverloaded = errors.New("batcher: overloaded: too many batches in flight")

// ErrInvalidConfig is wrapped by the errors of [New] and [Batcher.SetConfig] for
// a Config out of range (a negative field, MaxBytes without Size, an unknown
// Policy), each naming the field and its value, and by the error of New for a
// nil flush func. The caller should fix the configuration; SetConfig then
// changes nothing, the previous one stays in force.
var ErrInvalidConfig = errors.New("invalid config")

// ErrClosed is returned by [Batcher.Do] after [Batcher.Close] has started. The item
// was not sent; the caller should stop using the batcher.
var ErrClosed = errors.New("batcher: closed")

// errZeroPending is what Wait returns on a Pending that no Start made.
var errZeroPending = errors.New("batcher: Wait on a Pending that Start did not return")

// errGoexit is the value of the PanicError that items get when the flush func
// calls runtime.Goexit instead of returning.
var errGoexit = errors.New("batcher: flush called runtime.Goexit")

// PanicError is the error every item of a batch gets when the flush func panics
// (or calls runtime.Goexit). The process does not crash and no caller is stranded;
// the caller should treat the batch as failed and report the bug.
type PanicError struct {
	Value any    // the value passed to panic
	Stack []byte // the stack of the flush goroutine at the panic (or the Goexit)
}

// Error implements error.
func (p *PanicError) Error() string {
	return fmt.Sprintf("batcher: flush panicked: %v\n\n%s", p.Value, p.Stack)
}

// Unwrap returns Value if it is an error, so errors.Is sees through the panic.
func (p *PanicError) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}
