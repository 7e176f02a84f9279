package batcher

import (
	"fmt"
	"strconv"
	"time"
)

// Defaults applied to zero fields of [Config].
const (
	DefaultMaxItems     = 128
	DefaultLinger       = 2 * time.Millisecond
	DefaultFlushTimeout = 5 * time.Second
	DefaultMaxInFlight  = 256
	DefaultIdleTTL      = time.Minute
)

// FlushPolicy says when a batch that is neither full nor past its linger is
// flushed. The zero value means [FlushOnLinger].
type FlushPolicy uint8

const (
	// FlushOnLinger keeps a batch open until it is full ([Config.MaxItems],
	// [Config.MaxBytes]) or [Config.Linger] has passed since its first item. Every
	// partial batch pays the whole linger: right for a backend whose cost is per
	// call and a load that fills batches, wrong at low concurrency.
	FlushOnLinger FlushPolicy = iota + 1

	// FlushNatural is natural ("smart") batching, as in group commit: an item that
	// finds no flush of its group in flight is flushed at once, with whatever its
	// group had pending; items that arrive while a flush of the group is in flight
	// wait in the open batch, which is flushed the moment that flush returns, when
	// it is full, or when Linger has passed since its first item, whichever comes
	// first (so Linger stays an upper bound, and a slow flush does not hold the
	// next batch back longer than Linger). Batch size then follows the load: one
	// item per call when callers come one at a time (latency = the backend's),
	// full batches when the backend is the bottleneck. Fewer items per call than
	// FlushOnLinger at moderate load is the price.
	//
	// With FlushNatural, a caller whose context cannot be cancelled
	// (ctx.Done() == nil) and whose item closes its batch runs that batch's flush
	// on its own goroutine, saving a goroutine hand-off; a flush func that calls
	// runtime.Goexit then ends that caller's goroutine too (the batch's other
	// items still get a [*PanicError]).
	FlushNatural
)

// String returns the policy's name.
func (p FlushPolicy) String() string {
	switch p {
	case 0, FlushOnLinger:
		return "linger"
	case FlushNatural:
		return "natural"
	}
	return "FlushPolicy(" + strconv.Itoa(int(p)) + ")"
}

// Config holds the knobs of a [Batcher]. A zero field means the documented default;
// every field can be changed at run time with [Batcher.SetConfig].
//
// Req is the request type of the batcher: Size and Key look at requests.
type Config[Req any] struct {
	// MaxItems flushes a batch as soon as it holds this many items.
	// Zero means DefaultMaxItems. A batch open when SetConfig lowers it
	// may go out larger (see [Batcher.SetConfig]).
	MaxItems int

	// MaxBytes, if positive, flushes a batch before it would exceed this many bytes
	// as measured by Size. An item larger than MaxBytes is flushed in a batch of its
	// own. Zero means no byte limit; a negative MaxBytes is refused with
	// [ErrInvalidConfig]. MaxBytes needs Size.
	MaxBytes int

	// Size reports the size of one request in bytes, for MaxBytes. It must be cheap
	// and deterministic (it is called once per item, outside any lock). A
	// negative size counts as 0.
	// If nil, items have no size and MaxBytes must be zero.
	Size func(Req) int

	// Linger is how long a batch stays open after its FIRST item arrives; when it
	// ends the batch is flushed however full it is. Zero means DefaultLinger.
	// With FlushNatural it is only an upper bound.
	Linger time.Duration

	// Policy says when a partial batch is flushed: FlushOnLinger (the default)
	// waits out Linger, FlushNatural flushes at once when no flush of the group
	// is in flight. Zero means FlushOnLinger.
	Policy FlushPolicy

	// FlushTimeout bounds each flush: the flush context ends this long after the
	// batch is dispatched. Zero means DefaultFlushTimeout.
	FlushTimeout time.Duration

	// MaxInFlight caps the batches dispatched whose flush has not returned. While
	// the cap is reached, Do rejects new items at once with ErrOverloaded, and a
	// batch that closes while the cap is reached is answered ErrOverloaded instead
	// of being flushed, so at most MaxInFlight*MaxItems items are in the backend
	// (Close, which flushes every open batch at once, is the exception).
	// Zero means DefaultMaxInFlight.
	MaxInFlight int

	// IdleTTL evicts the entry of a group that has had nothing pending for this
	// long. Eviction is lazy: it runs on the goroutine that opens a new batch, at
	// most every IdleTTL/2 (and at most every millisecond), or when
	// [Batcher.EvictIdle] is called.
	// Zero means DefaultIdleTTL.
	IdleTTL time.Duration

	// Key, if set, de-duplicates identical items within one batch: items whose
	// Key returns the same string with ok true are sent to the backend once and
	// share that one result. Items for which ok is false are never merged.
	// The callers of merged items get copies of one Result: a slice, map or
	// pointer in Resp is shared by callers that know nothing of each other,
	// who must treat it as read-only (or copy it before changing it). Without
	// Key, each item has its own out[i].
	//
	// WARNING: every input that changes the result must be in the key (the group
	// already is: de-duplication never crosses groups).
	// If nil, nothing is de-duplicated. A panic in Key, or a call to
	// runtime.Goexit, fails its batch: nothing is sent and every item gets a
	// [*PanicError] (a Goexit also ends the goroutine running the flush, as
	// one in the flush func does).
	Key func(Req) (key string, ok bool)
}

// validate rejects contradictory or negative settings, naming the field and
// its value, with an error wrapping [ErrInvalidConfig].
func (c Config[Req]) validate() error {
	switch {
	case c.MaxItems < 0:
		return invalid("MaxItems %d is negative", c.MaxItems)
	case c.MaxBytes < 0:
		return invalid("MaxBytes %d is negative", c.MaxBytes)
	case c.MaxBytes > 0 && c.Size == nil:
		return invalid("MaxBytes %d needs a Size func", c.MaxBytes)
	case c.Linger < 0:
		return invalid("Linger %v is negative", c.Linger)
	case c.Policy > FlushNatural:
		return invalid("unknown Policy %v", c.Policy)
	case c.FlushTimeout < 0:
		return invalid("FlushTimeout %v is negative", c.FlushTimeout)
	case c.MaxInFlight < 0:
		return invalid("MaxInFlight %d is negative", c.MaxInFlight)
	case c.IdleTTL < 0:
		return invalid("IdleTTL %v is negative", c.IdleTTL)
	}
	return nil
}

// invalid returns an error prefixed "batcher: " wrapping [ErrInvalidConfig].
func invalid(format string, args ...any) error {
	return fmt.Errorf("batcher: "+format+": %w", append(args, ErrInvalidConfig)...)
}

// withDefaults returns c with every zero field set to its default.
func (c Config[Req]) withDefaults() Config[Req] {
	if c.MaxItems == 0 {
		c.MaxItems = DefaultMaxItems
	}
	if c.Linger == 0 {
		c.Linger = DefaultLinger
	}
	if c.Policy == 0 {
		c.Policy = FlushOnLinger
	}
	if c.FlushTimeout == 0 {
		c.FlushTimeout = DefaultFlushTimeout
	}
	if c.MaxInFlight == 0 {
		c.MaxInFlight = DefaultMaxInFlight
	}
	if c.IdleTTL == 0 {
		c.IdleTTL = DefaultIdleTTL
	}
	return c
}

// minSweepEvery bounds how often the lazy eviction sweep runs, so that a tiny
// IdleTTL cannot turn every new batch into a walk over all groups.
const minSweepEvery = time.Millisecond

// sweepEvery returns the interval between lazy eviction sweeps, in nanoseconds.
func (c Config[Req]) sweepEvery() int64 { return int64(max(c.IdleTTL/2, minSweepEvery)) }
