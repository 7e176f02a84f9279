package control

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

var (
	// ErrUnknownKnob reports a change or read of a knob that is not registered.
	// The caller should fix the name (GET the knob list); retrying will not help.
	ErrUnknownKnob = errors.New("control: unknown knob")

	// ErrDuplicateKnob reports a registration under a name already taken.
	ErrDuplicateKnob = errors.New("control: knob already registered")

	// ErrInvalidKnob is wrapped by the errors of the Register methods for a
	// knob or state they cannot take (the error says why: no name, text that
	// is not valid UTF-8, no Apply, bounds out of order or not finite, an
	// initial value out of bounds). A programming mistake: fix the
	// registration; nothing was registered.
	ErrInvalidKnob = errors.New("control: invalid knob")

	// ErrRateLimited reports a change refused by a knob's MinInterval or the
	// registry's change budget. Errors returned are *RateLimitError: the caller
	// should wait RetryAfter, reconsider, and try again.
	ErrRateLimited = errors.New("control: change rate limited")

	// ErrNothingToRollback reports a rollback with no change left to undo in the
	// audit log (never changed, everything undone, or the batch was evicted from
	// the bounded log).
	ErrNothingToRollback = errors.New("control: nothing to roll back")

	// ErrEmptyRequest reports a change request with no changes.
	ErrEmptyRequest = errors.New("control: request has no changes")

	// ErrInvalidConfig is wrapped by the errors of [New] and
	// [Registry.SetConfig] (SetConfigAt) for a Config out of range (a negative
	// AuditSize or Burst, a Rate that is negative or not finite, a Burst
	// without a Rate, an AllowedHosts entry with a port or a wildcard). The
	// caller should fix the configuration; SetConfig then changes nothing, the
	// previous one stays in force.
	ErrInvalidConfig = errors.New("invalid config")

	// ErrBadRequest is matched (errors.Is) by the errors of [DecodeRequest],
	// and of the handler's body decoding, for a body that is not one
	// well-formed request: not valid UTF-8, not JSON, not an object, an
	// unknown or repeated member, a member whose value is null (leave it out
	// instead), trailing data, a change without a knob name or without a
	// value, a value that is not a JSON number, string or bool (which
	// [Value.UnmarshalJSON] refuses so wherever it decodes one).
	// [Registry.Apply] and [Registry.Rollback] (and their …At forms) return
	// it wrapped for a Who or Why that is not valid UTF-8, which the audit
	// log's JSON could not carry, and [Registry.ApplyAt] and
	// [Registry.RollbackAt] for a time it could not carry (a year after 9999
	// or before 0) or the zero time.Time. The caller should fix the request; sending it again will
	// not help.
	ErrBadRequest = errors.New("control: bad request")

	// ErrDuplicateChange reports a request that changes one knob twice. Send one
	// change per knob.
	ErrDuplicateChange = errors.New("control: knob changed twice in one request")
)

// ValueError reports a value a knob cannot take: the wrong kind, a number
// its kind cannot hold, a duration that does not parse or is not a whole
// number of nanoseconds, a non-finite float, a string outside an enum, not
// valid UTF-8 or longer than the knob's MaxLen. None of these is clamped or
// truncated, in a strict request or not: clamping is for a number of the
// knob's kind outside its bounds. The caller should fix the value. The
// UnmarshalJSON methods of [Info], [Entry] and [Outcome] return it for a value
// the kind their JSON names cannot hold.
type ValueError struct {
	Knob   string
	Value  string // the value as text (beyond 64 bytes cut short, "..." added)
	Reason string // what is wrong with it
}

// Error implements error.
func (e *ValueError) Error() string {
	return fmt.Sprintf("control: knob %q: value %q: %s", e.Knob, e.Value, e.Reason)
}

// KindError reports a kind name that [Kind.UnmarshalText] does not know, met
// when decoding an [Info], [Entry] or [Outcome] (from GET /knobs or the audit
// log) written by a registry with kinds this one lacks, or text that is not a
// registry's. Text is the name as given.
type KindError struct {
	Text string
}

// Error implements error.
func (e *KindError) Error() string { return fmt.Sprintf("control: unknown kind %q", e.Text) }

// BoundsError reports a value outside a knob's bounds in a strict request (a
// request that is not strict clamps instead). The caller should pick a value in
// [Min, Max].
type BoundsError struct {
	Knob     string
	Value    Value
	Min, Max Value
}

// Error implements error.
func (e *BoundsError) Error() string {
	return fmt.Sprintf("control: knob %q: %v is outside [%v, %v]", e.Knob, e.Value, e.Min, e.Max)
}

// RateLimitError is the ErrRateLimited error: which knob (empty for the
// registry-wide budget) and how long until a change would be accepted.
type RateLimitError struct {
	Knob       string
	RetryAfter time.Duration
}

// Error implements error.
func (e *RateLimitError) Error() string {
	if e.Knob == "" {
		return fmt.Sprintf("control: change budget exhausted; retry after %v", e.RetryAfter)
	}
	return fmt.Sprintf("control: knob %q changed too recently; retry after %v", e.Knob, e.RetryAfter)
}

// Is makes errors.Is(err, ErrRateLimited) true.
func (e *RateLimitError) Is(target error) bool { return target == ErrRateLimited }

// ApplyError reports a change that the component's Apply func refused. The
// whole batch was undone (the knobs applied before it got their old values
// back); Undo holds the errors of that undo, if any, in which case the
// component may be left half-changed and needs an operator. An Apply func that
// panicked while giving its knob the old value back is listed there as an
// error "panic: <value>" (wrapping the value if it is an error), and the knobs
// after it were still restored. The registry still reports the old values of
// the knobs it could not restore, and applies the next change of each even if
// it sets that same value, so that the operator can repair them by sending the
// values they should have. [Registry.Knobs] marks them Unsure until then,
// also when the batch failed by a panic, which reaches the caller without
// an ApplyError (the HTTP handler answers apply_failed for it all the same).
type ApplyError struct {
	Knob string
	Err  error   // Apply's error
	Undo []error // errors of the Apply calls that gave the knobs before it their old values back
}

// Error implements error.
func (e *ApplyError) Error() string {
	s := fmt.Sprintf("control: knob %q: apply: %v", e.Knob, e.Err)
	if len(e.Undo) > 0 {
		s += fmt.Sprintf(" (undo failed: %v)", errors.Join(e.Undo...))
	}
	return s
}

// Unwrap returns the component's error.
func (e *ApplyError) Unwrap() error { return e.Err }

// panicError turns the value of an Apply func's panic into an error "panic:
// <value>", wrapping the value if it is an error.
func panicError(v any) error {
	if e, ok := v.(error); ok {
		return fmt.Errorf("panic: %w", e)
	}
	return fmt.Errorf("panic: %v", v)
}

// unknown wraps ErrUnknownKnob with the name.
func unknown(name string) error { return fmt.Errorf("%w %q", ErrUnknownKnob, name) }

// clip returns s cut to n bytes at a character boundary, with "..." added
// and copied so that it does not keep the whole string alive: an error quotes
// a client's value or name, bounded.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.Clone(s[:n]) + "..."
}

// checkTime refuses, for ApplyAt and RollbackAt, a now that JSON cannot
// encode: stamped on audit entries and kept as a knob's last change (which
// never moves back in time), it made GET /, /knobs and /audit answer 500 for
// as long as the registry lived. It refuses the zero time.Time too, which
// marks a knob never changed and a budget never refilled: taken (a fake
// clock starting at time.Time{}), the knob's next change skipped its
// MinInterval and the budget earned nothing for the time after it. The
// refusal counts as a rejected request.
func (r *Registry) checkTime(now time.Time) error {
	var buf [64]byte // the text MarshalJSON quotes, checked the same way; no allocation
	_, err := now.AppendText(buf[:0])
	if err == nil && now.IsZero() {
		err = errors.New("the zero time.Time, which the registry reads as never")
	}
	if err != nil {
		r.n.requests.Add(1)
		r.n.rejected.Add(1)
		return fmt.Errorf("%w: time %v: %w", ErrBadRequest, now, err)
	}
	return nil
}
