package shed

import "errors"

// ErrShed is matched (with errors.Is) by every error that reports a shed request.
// A shed request was not run: the caller should fail it fast or retry later with
// backoff, never retry in a tight loop (the tier is overloaded or the tenant is over
// its share). errors.As with a *ShedError gives the [Reason].
var ErrShed = errors.New("shed: request shed")

// ErrInvalidConfig is wrapped by the errors of [New], [NewScheduler],
// [Shedder.SetConfig] and [Scheduler.SetConfig] for a Config out of range (a
// negative bound or deadline, a StandingDeadline above QueueDeadline, a weight
// below 1, a nil CapacityFunc). With several fields wrong, the error is an
// errors.Join of one such error per field. The caller should fix the
// configuration; SetConfig then changes nothing, the previous one stays in force.
var ErrInvalidConfig = errors.New("invalid config")

// Reason says why a request was shed. Reasons start at 1; the zero Reason is invalid.
type Reason uint8

// The reasons a request is shed.
const (
	// ReasonBucketFull: the (tenant, priority) bucket already held
	// [Config.MaxQueue] requests or [Config.MaxQueueCost] cost. The tenant is
	// flooding; back off.
	ReasonBucketFull Reason = iota + 1
	// ReasonQueueDeadline: the request waited longer than its queue deadline
	// ([Config.QueueDeadline], or [Config.StandingDeadline] for a standing queue)
	// and was dropped rather than served late; or, with [Config.ShedOnArrival],
	// it would have waited past it and was shed as it arrived, without waiting
	// (counted in [BucketStats].ShedOnArrival as well as in ShedQueueDeadline,
	// not apart from it).
	ReasonQueueDeadline
	// ReasonClosed: the Shedder was closed. Do not retry on this Shedder.
	ReasonClosed
	// ReasonNoCapacity: [Shedder.TryAcquire] found no free capacity or a
	// non-empty queue, and does not wait.
	ReasonNoCapacity

	numReasons = int(ReasonNoCapacity) + 1
)

// String returns the reason in words.
func (r Reason) String() string {
	switch r {
	case ReasonBucketFull:
		return "bucket full"
	case ReasonQueueDeadline:
		return "queue deadline"
	case ReasonClosed:
		return "closed"
	case ReasonNoCapacity:
		return "no capacity"
	}
	return "invalid reason"
}

// ShedError is the error returned for a shed request. It matches [ErrShed] with
// errors.Is. The values returned are shared and immutable (shedding allocates
// nothing), so they carry only the reason; the caller knows its tenant.
type ShedError struct {
	Reason Reason
}

// Error implements error.
func (e *ShedError) Error() string { return "shed: request shed: " + e.Reason.String() }

// Is reports whether target is [ErrShed].
func (e *ShedError) Is(target error) bool { return target == ErrShed }

// Shared error values: returning them allocates nothing on the shed path.
var (
	errBucketFull    = &ShedError{Reason: ReasonBucketFull}
	errQueueDeadline = &ShedError{Reason: ReasonQueueDeadline}
	errClosed        = &ShedError{Reason: ReasonClosed}
	errNoCapacity    = &ShedError{Reason: ReasonNoCapacity}
)

// ErrorFor returns the shared *ShedError for reason r (nil for an invalid reason).
func ErrorFor(r Reason) error {
	switch r {
	case ReasonBucketFull:
		return errBucketFull
	case ReasonQueueDeadline:
		return errQueueDeadline
	case ReasonClosed:
		return errClosed
	case ReasonNoCapacity:
		return errNoCapacity
	}
	return nil
}
