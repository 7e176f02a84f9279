package coalesce

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// ErrGoexit is the error that [PanicError.Unwrap] returns when fn called
// [runtime.Goexit] instead of returning: errors.Is(err, ErrGoexit) tells a Goexit
// apart from a panic. The caller should treat it like a failed call (fn gave no
// result); retrying starts a fresh execution.
var ErrGoexit = errors.New("coalesce: fn called runtime.Goexit")

// nilFnPanic is the panic value of Do, DoWith and DoChan for a nil fn.
const nilFnPanic = "coalesce: nil fn"

// PanicError is the error every waiter of an execution gets when fn panics or calls
// [runtime.Goexit]. The panic is recovered on the goroutine running fn and never
// crashes the process, and no waiter is left blocked.
//
// A caller that wants the usual crash-on-panic behaviour can re-panic with it:
//
//	var pe *coalesce.PanicError
//	if errors.As(err, &pe) && !pe.Goexit {
//		panic(pe)
//	}
type PanicError struct {
	// Value is the value passed to panic (a *runtime.PanicNilError for panic(nil),
	// or nil under the panicnil=1 GODEBUG setting). It is nil when Goexit is set.
	// The setting is read once, when the package initializes: a program that turns
	// panicnil=1 on later (os.Setenv of GODEBUG) gets a panic(nil) in fn reported
	// as a Goexit.
	Value any
	// Stack is the stack of the goroutine running fn, captured when the panic was
	// recovered, or when the Goexit unwound past the execution.
	Stack []byte
	// Goexit reports whether fn called runtime.Goexit rather than panicking.
	Goexit bool
}

// Error implements error. It includes the stack, so that a logged error locates the
// panic.
func (p *PanicError) Error() string {
	if p.Goexit {
		return fmt.Sprintf("coalesce: fn called runtime.Goexit\n\ngoroutine stack:\n%s", p.Stack)
	}
	return fmt.Sprintf("coalesce: fn panicked: %v\n\ngoroutine stack:\n%s", p.Value, p.Stack)
}

// Unwrap returns [ErrGoexit] for a Goexit, the panic value when it is an error
// (so errors.Is/As see through a panic(err)), and nil otherwise.
func (p *PanicError) Unwrap() error {
	if p.Goexit {
		return ErrGoexit
	}
	if err, ok := p.Value.(error); ok {
		return err
	}
	return nil
}

func newPanicError(v any) *PanicError {
	return &PanicError{Value: v, Stack: debug.Stack()}
}

func newGoexitError() *PanicError {
	return &PanicError{Stack: debug.Stack(), Goexit: true}
}
