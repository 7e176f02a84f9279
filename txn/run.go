package txn

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// RetryPolicy bounds [Run]'s retries. The zero RetryPolicy is valid: every
// zero field means its documented default.
type RetryPolicy struct {
	// MaxAttempts bounds the attempts (default 10).
	MaxAttempts int
	// MaxElapsed bounds the time spent retrying (default 10s): no backoff
	// wait ends, and no attempt starts, later than MaxElapsed after Run
	// began. An attempt already running is not interrupted (fn and the
	// engine's calls take the caller's context, and cutting a commit short
	// would make its outcome unknown), so Run can return up to one attempt's
	// duration after MaxElapsed. To bound the whole call, give ctx a
	// deadline, or set Options.Deadline. A backoff that would end after
	// ctx's deadline is not waited either: Run returns at once, with an
	// error matching ErrRetriesExhausted, context.DeadlineExceeded and the
	// last attempt's error.
	MaxElapsed time.Duration
	// BaseBackoff is the backoff ceiling after the first failure; it doubles
	// per attempt up to MaxBackoff, and each wait is drawn uniformly below
	// the ceiling ("full jitter"). Defaults 1ms and 100ms.
	BaseBackoff, MaxBackoff time.Duration
}

// validate reports the first field of a RetryPolicy out of range, named with
// its value, as an error wrapping [ErrInvalidConfig].
func (p RetryPolicy) validate() error {
	switch {
	case p.MaxAttempts < 0:
		return invalid("RetryPolicy.MaxAttempts %d is negative", p.MaxAttempts)
	case p.MaxElapsed < 0:
		return invalid("RetryPolicy.MaxElapsed %v is negative", p.MaxElapsed)
	case p.BaseBackoff < 0:
		return invalid("RetryPolicy.BaseBackoff %v is negative", p.BaseBackoff)
	case p.MaxBackoff < 0:
		return invalid("RetryPolicy.MaxBackoff %v is negative", p.MaxBackoff)
	}
	if p.BaseBackoff > 0 && p.MaxBackoff > 0 && p.BaseBackoff > p.MaxBackoff {
		return invalid("RetryPolicy.BaseBackoff %v exceeds MaxBackoff %v", p.BaseBackoff, p.MaxBackoff)
	}
	return nil
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts == 0 {
		p.MaxAttempts = 10
	}
	if p.MaxElapsed == 0 {
		p.MaxElapsed = 10 * time.Second
	}
	if p.BaseBackoff == 0 {
		p.BaseBackoff = time.Millisecond
	}
	if p.MaxBackoff == 0 {
		p.MaxBackoff = max(100*time.Millisecond, p.BaseBackoff)
	}
	return p
}

// ErrRetriesExhausted wraps the last error when [Run] runs out of attempts or
// time.
var ErrRetriesExhausted = errors.New("txn: retries exhausted")

// Retryable reports whether err means the whole transaction can be retried
// safely: a conflict, a too-old read version, or a transient failure before
// the commit was applied. An error that also matches ErrCommitUnknown is
// not: [Run]'s error says so when an earlier attempt's outcome was unknown,
// whatever ended the later ones, and that attempt may have committed (retry
// only under the same idempotency key, or read back).
func Retryable(err error) bool {
	if errors.Is(err, ErrCommitUnknown) {
		return false
	}
	return errors.Is(err, ErrConflict) || errors.Is(err, ErrTooOld) || errors.Is(err, ErrTransient)
}

// Run runs fn in a transaction and commits it, retrying with backoff while
// the failure is [Retryable]. fn must have no effects outside the
// transaction, since it may run several times. It returns the commit version.
//
// An unknown commit outcome is never retried blindly: with
// opt.IdempotencyKey set, Run retries and the engine deduplicates (an
// ErrAlreadyCommitted answer means the earlier attempt committed, and Run
// returns success with that version); without one, Run returns
// ErrCommitUnknown. An error returned by fn rolls back and is returned as is
// (unless it is retryable, as ErrTooOld from a read is). Once an attempt's
// outcome was unknown, every error Run returns (the context ending, fn
// failing on the retry, ...) also matches ErrCommitUnknown: that attempt may
// have committed.
//
// A ctx that has ended when an attempt is to commit stops Run at once, in any
// attempt, with Commit's error for it, which matches ctx.Err() and says that
// the commit was not sent (it matches ErrCommitUnknown only if an earlier
// attempt's did).
//
// When ctx ends in a backoff, or in the last attempt (failing it as
// retryable), Run gives up with an error matching ErrRetriesExhausted,
// ctx.Err() (context.DeadlineExceeded or context.Canceled, whatever error the
// engine gave for it) and the last attempt's error; retries that ran out
// while ctx was live do not match ctx.Err().
//
// fn must not commit or roll back tx itself (Run does; a commit made by fn
// makes Run's own fail with ErrDone). A panic in fn rolls the attempt back
// and propagates; it is not retried.
func Run(ctx context.Context, eng Engine, opt Options, pol RetryPolicy, fn func(tx *Tx) error) (uint64, error) {
	if err := pol.validate(); err != nil {
		return 0, err
	}
	pol = pol.withDefaults()
	start := time.Now()
	var err error
	unknown := false // an earlier attempt's commit may have been applied
	fail := func(err error) (uint64, error) {
		if unknown && !errors.Is(err, ErrCommitUnknown) {
			err = fmt.Errorf("%w (an earlier attempt's outcome): %w", ErrCommitUnknown, err)
		}
		return 0, err
	}
	for attempt := 0; attempt < pol.MaxAttempts; attempt++ {
		if attempt > 0 {
			ceil := pol.MaxBackoff
			// Up to 62 doublings: a ceiling of MaxBackoff more than 2^30
			// times BaseBackoff is reached too. BaseBackoff is at least 1.
			if sh := min(attempt-1, 62); pol.BaseBackoff <= pol.MaxBackoff>>sh {
				ceil = pol.BaseBackoff << sh // cannot overflow: at most MaxBackoff
			}
			d := rand.N(ceil)                         // below the ceiling; ceil+1 overflows at the largest duration
			if d > pol.MaxElapsed-time.Since(start) { // Since+d can overflow
				break
			}
			if dl, ok := ctx.Deadline(); ok && d > time.Until(dl) {
				return fail(fmt.Errorf("%w: the backoff would pass the context's deadline: %w: %w",
					ErrRetriesExhausted, context.DeadlineExceeded, err))
			}
			if werr := sleep(ctx, d); werr != nil {
				return fail(fmt.Errorf("%w: the context ended in the backoff: %w: %w", ErrRetriesExhausted, werr, err))
			}
		}
		var v uint64
		var sent bool
		v, sent, err = runOnce(ctx, eng, opt, fn)
		switch {
		case err == nil:
			return v, nil
		case !sent: // fn's or Begin's error, whatever it wraps: no commit was made
		case errors.Is(err, ErrAlreadyCommitted):
			return v, nil
		case errors.Is(err, ErrCommitUnknown) && len(opt.IdempotencyKey) > 0:
			unknown = true
			continue // the engine deduplicates the retry
		}
		if !Retryable(err) {
			return fail(err)
		}
	}
	el := time.Since(start).Round(time.Millisecond)
	// The context may have ended in the last attempt, and the engine said
	// so with an error of its own (a connection's deadline set from ctx):
	// the caller tells its own deadline from retries running out by ctx's
	// error, as on the backoff path above.
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fail(fmt.Errorf("%w after %v: the context ended: %w: %w", ErrRetriesExhausted, el, cerr, err))
	}
	return fail(fmt.Errorf("%w after %v: %w", ErrRetriesExhausted, el, err))
}

// runOnce runs one attempt. sent reports whether err is Commit's: only
// then can it tell a commit's outcome (ErrAlreadyCommitted,
// ErrCommitUnknown); fn's error is fn's, whatever it wraps.
func runOnce(ctx context.Context, eng Engine, opt Options, fn func(tx *Tx) error) (v uint64, sent bool, err error) {
	tx, err := Begin(eng, opt)
	if err != nil {
		return 0, false, err
	}
	// Rollback is a no-op once Commit finished the transaction; it ends
	// the attempt when fn fails or panics, or Commit's context was done.
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return 0, false, err
	}
	v, err = tx.Commit(ctx)
	return v, true, err
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
