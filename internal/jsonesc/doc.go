// Package jsonesc finds what encoding/json would decode silently into
// something the sender never wrote: a \u escape of half a surrogate pair,
// which it replaces with U+FFFD (as it does a byte that is not UTF-8, which
// utf8.Valid catches). control and the examples' control plane refuse such
// bodies rather than apply a mangled string.
//
// [RepeatedMember] finds another such input: an object that names a member
// twice (in any case), which encoding/json decodes as its last one. Its
// callers are examples/controlplane's API and command's config file and
// examples/gateway's configuration loader (control's DecodeRequest has its
// own check, within its one pass over the body).
//
// [LoneSurrogate] returns the offset of the first such escape. Its callers
// are control's DecodeRequest (its handler answers 400), examples/controlplane's
// API and command's config file, and examples/gateway's configuration loader;
// each decodes the body first, so it is valid JSON by then. It is internal
// because it serves packages of the root and examples modules and is not API
// of the kit.
//
// # When not to use it
//
// Not on input that has not been decoded as JSON first: LoneSurrogate reads
// every backslash as the start of an escape, and an escape cut short at the
// end of data panics (an index out of range). Not as a UTF-8 check: it looks
// at \u escapes only, and a byte that is not UTF-8 is utf8.Valid's to catch
// (examples/gateway's loader calls both).
//
// # Concurrency
//
// LoneSurrogate is a pure function of its argument: it keeps no state,
// starts no goroutine and does not write data, so any number of goroutines
// may call it at once, on the same data too. It does not allocate.
// RepeatedMember is pure too, and allocates what a json.Decoder's tokens
// and the names of one object at a time take.
//
// # Stats
//
// None.
package jsonesc
