package cache

import (
	"fmt"
	"time"
)

// DefaultCapacity is the capacity used when [Config.Capacity] is zero.
const DefaultCapacity = 10_000

// Config holds the settings of a [Cache]. The zero value is valid: a cache of
// [DefaultCapacity] entries that owns every key, with no staleness bound, on the
// system clock.
//
// Every field but Clock can be changed at runtime with [Cache.SetConfig].
type Config[K comparable] struct {
	// Capacity is the maximum number of entries. Zero means [DefaultCapacity];
	// negative is an error. Lowering it with SetConfig evicts at once.
	Capacity int

	// MaxStaleness is the bounded-staleness contract: a hit is served only if
	// the newest checkpoint applied with [Cache.Apply], or the entry's own load
	// (whichever is later), is at most MaxStaleness old on the cache's clock.
	// Otherwise the read bypasses the entry and reads through (counted in
	// [Stats.StaleBypass]). See the package documentation for the exact
	// guarantee. Zero disables the bound (for a cache with no change stream,
	// where entries live until evicted or invalidated); negative is an error.
	MaxStaleness time.Duration

	// Owns reports whether this host caches key. If nil, it owns every key.
	// Reads of keys it does not own go to the loader (still coalesced) and are
	// never stored, not even if the key is owned by the time the load ends
	// (GetMany's too; FillMany, which does not look up, asks Owns when it
	// starts); Set stores none of them but invalidates them, as Delete
	// does (ownership may come back after a ring swap). A load or Set in
	// flight when SetConfig sets, replaces or removes Owns stores nothing
	// (the key may have gone and come back). The cache cannot compare
	// functions: any SetConfig while the current or the new Config has an
	// Owns counts, the same Owns passed back (as Config returns it, to
	// change only the capacity or the bound) included. Entries cached while a
	// key was owned are kept, not dropped, when it no longer is, and are
	// served again if it comes back (see Ownership in the package doc).
	// A hashring lookup that compares the
	// owner with the local host fits. It is called on every read, so it must be
	// fast and safe for concurrent use.
	Owns func(key K) bool

	// Clock is the time source for staleness. If nil, the system's monotonic
	// clock. Read by New only: SetConfig ignores it.
	Clock Clock
}

// Clock is a source of time; tests inject a fake one.
type Clock interface {
	// Now returns the current time. It must never go backwards.
	Now() time.Time
}

// validate reports the first field of c out of range, as an error wrapping
// both its own sentinel and [ErrInvalidConfig].
func (c Config[K]) validate() error {
	if c.Capacity < 0 {
		return fmt.Errorf("%w: %w", ErrCapacity, ErrInvalidConfig)
	}
	if c.MaxStaleness < 0 {
		return fmt.Errorf("%w: %w", ErrStaleness, ErrInvalidConfig)
	}
	return nil
}

func (c Config[K]) capacity() int {
	if c.Capacity == 0 {
		return DefaultCapacity
	}
	return c.Capacity
}

// systemClock reads time.Now.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }
