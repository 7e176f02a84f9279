package cache

import "errors"

// ErrInvalidConfig is wrapped by the errors of [New] and [Cache.SetConfig] for a
// Config out of range, together with [ErrCapacity] or [ErrStaleness], which
// name the field. The caller should fix the configuration; SetConfig then
// changes nothing, the previous one stays in force.
var ErrInvalidConfig = errors.New("invalid config")

// Errors wrapped, with [ErrInvalidConfig], by the errors of [New] and
// [Cache.SetConfig] for an invalid [Config]. They are programming or
// configuration mistakes: fix the Config.
var (
	ErrCapacity  = errors.New("cache: Capacity must not be negative")
	ErrStaleness = errors.New("cache: MaxStaleness must not be negative")
)

// ErrLoadCount is wrapped by the error of [Cache.GetMany] and
// [Cache.FillMany] when their bulk load returned a number of values other
// than the number of keys it was given (the error says both): a bug in the
// load, whose values are then not stored. Fix the load.
var ErrLoadCount = errors.New("cache: the bulk load returned a wrong number of values")
