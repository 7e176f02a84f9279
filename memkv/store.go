package memkv

import (
	"bytes"
	"context"
	"sort"
	"sync"
	"sync/atomic"
)

// CommitRequest is what a transaction sends to [Store.Commit]. It is an alias
// of an unnamed struct type so that a transaction layer can declare the very
// same type without importing memkv (txn.CommitRequest is identical); keep the
// two in step.
//
// Ranges are [begin, end) pairs flattened into one slice (R[2i], R[2i+1]); a
// nil end means no upper bound; a pair slice (ReadRanges, Sets, Clears,
// WriteRanges) of odd length fails the commit with ErrInvalidRequest. The
// store applies Clears first, then Sets.
//
//   - ReadVersion: the version every read of the transaction was made at.
//   - ReadKeys: point reads to validate (nothing written to them after
//     ReadVersion).
//   - ReadRanges: range reads to validate (no key in them written after
//     ReadVersion, including keys that did not exist when read).
//   - Sets: key, value pairs to write; a nil value deletes the key. A key
//     set twice takes its last write (the feed carries both, in order).
//     Deleting a key that is absent writes nothing: no feed event, and no
//     conflict for readers of it (the commit still takes a version).
//   - Clears: ranges to delete.
//   - WriteRanges: extra write-conflict ranges, with no data: readers of them
//     conflict as if they had been written.
//   - IdempotencyKey: if non-empty, a second commit with the same key within
//     the history window is not applied and returns ErrAlreadyCommitted with
//     the first commit's version. Only a commit with writes (Sets, Clears or
//     WriteRanges) records its key: a read-only one applies nothing, and its
//     keys would pile up with no bound, since it creates no version and so
//     never moves the window on. Its retry is validated again, and may fail
//     (a conflict, ErrTooOld) although the first attempt committed.
type CommitRequest = struct {
	ReadVersion    uint64
	ReadKeys       [][]byte
	ReadRanges     [][]byte
	Sets           [][]byte
	Clears         [][]byte
	WriteRanges    [][]byte
	IdempotencyKey []byte
}

// Store is an in-memory, ordered, multi-version key-value store with
// optimistic commit validation and a change feed. Create it with [New]; it is
// safe for concurrent use and must not be copied.
//
// Range reads never lock: each range shard is a skiplist whose readers only
// follow atomic pointers; point reads use a striped hash index of the nodes. Commits are sequenced by one mutex (validation needs a
// single order; each commit's incremental GC sweep runs under it too) and lock
// only the shards they write or sweep, so [Store.GC], which locks one shard at
// a time, stalls only a commit that writes or sweeps the shard it holds (and,
// as that commit holds the mutex, the commits after it).
type Store struct {
	cfg     atomic.Pointer[Config]
	splits  [][]byte // immutable after New
	shards  []*shard // immutable after New
	idx     *index   // key -> node, for point reads and validation
	visible atomic.Uint64
	horizon atomic.Uint64

	mu sync.Mutex // the sequencer; protects the fields below
	// rangeLog lists committed clears and write ranges in version order;
	// point writes are validated through the keys' version chains instead.
	rangeLog  fifo[rangeWrite]
	idem      map[string]uint64
	idemOrder fifo[idemEntry]
	idemPeak  int // the most keys idem held since it was last rebuilt
	// histLog lists the commits after the horizon and the bytes each wrote,
	// histBytes their sum; kept without a Config.HistoryBytes bound too, so
	// that a bound set at runtime counts the whole window at once.
	histLog   fifo[histEntry]
	histBytes int64
	subs      []*Subscription
	sinceCkpt int
	gcShard   int
	gcCursor  *node

	st counters
}

type shard struct {
	mu       sync.Mutex // serializes writers (commit apply, GC) of l
	l        *list
	keys     atomic.Int64
	versions atomic.Int64
}

type rangeWrite struct {
	begin, end []byte
	ver        uint64
}

type histEntry struct {
	ver   uint64
	bytes int64
}

type idemEntry struct {
	key string
	ver uint64
}

// New returns an empty store at version 0, or an error wrapping
// [ErrInvalidConfig] if cfg is invalid.
func New(cfg Config) (*Store, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	c := cfg.withDefaults()
	s := &Store{splits: c.Splits, idem: map[string]uint64{}, idx: newIndex()}
	for i := 0; i <= len(c.Splits); i++ {
		s.shards = append(s.shards, &shard{l: newList(uint64(i)*0x9e3779b97f4a7c15 + 1)})
	}
	s.cfg.Store(&c)
	return s, nil
}

// SetConfig swaps the tunables atomically. Splits cannot change: pass nil or
// the same cuts. A smaller history window (HistoryVersions, HistoryBytes)
// moves the horizon at once, so that [Store.GC] frees what fell behind it
// even if no commit follows. For an invalid cfg (a change of Splits
// included) it returns an error wrapping [ErrInvalidConfig] and changes
// nothing.
func (s *Store) SetConfig(cfg Config) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	if cfg.Splits != nil && !equalAll(cfg.Splits, s.splits) {
		return invalid("Splits cannot change after New")
	}
	c := cfg.withDefaults()
	c.Splits = s.splits
	// Under the sequencer: the horizon moves only there, and the window
	// shrunk here must hold for reads before the next commit does (that
	// commit moved it alone, so an idle store kept the old window for good).
	s.mu.Lock()
	s.cfg.Store(&c)
	s.advanceHorizonLocked(&c, s.visible.Load())
	s.mu.Unlock()
	return nil
}

// Config returns the current configuration.
func (s *Store) Config() Config {
	c := *s.cfg.Load()
	c.Splits = cloneAll(c.Splits) // the store routes by its own copy
	return c
}

// ReadVersion returns the newest committed version: reads at it see every
// commit acknowledged so far.
func (s *Store) ReadVersion() uint64 { return s.visible.Load() }

// Horizon returns the GC horizon: the oldest version still readable.
func (s *Store) Horizon() uint64 { return s.horizon.Load() }

// Get returns the value of key at version. The returned slice is shared with
// the store and must not be modified (appending to it copies it). It fails
// with ErrTooOld below the horizon and ErrFutureVersion above
// [Store.ReadVersion].
func (s *Store) Get(ctx context.Context, version uint64, key []byte) ([]byte, bool, error) {
	if err := s.checkRead(ctx, version); err != nil {
		return nil, false, err
	}
	s.st.reads.Add(1)
	var val []byte
	var ok bool
	if n := s.idx.get(key); n != nil {
		val, ok = n.visible(version)
	}
	// GC may have cut versions while we read: re-check the horizon.
	if version < s.horizon.Load() {
		s.st.tooOld.Add(1)
		return nil, false, ErrTooOld
	}
	return val, ok, nil
}

// Scan appends to dst the key, value pairs (flattened: dst[2i] key,
// dst[2i+1] value) of the keys in [begin, end) at version, in key order or
// reversed, at most limit pairs (limit <= 0: no limit). A nil end means no
// upper bound. Returned slices are shared with the store and must not be
// modified; appending to one copies it, so append(key, 0) safely builds the
// key after a returned key.
func (s *Store) Scan(ctx context.Context, version uint64, begin, end []byte, limit int, reverse bool, dst [][]byte) ([][]byte, error) {
	if err := s.checkRead(ctx, version); err != nil {
		return dst, err
	}
	s.st.scans.Add(1)
	n0 := len(dst)
	emit := func(n *node) bool {
		if v, ok := n.visible(version); ok {
			dst = append(dst, n.key, v)
		}
		return limit <= 0 || (len(dst)-n0)/2 < limit
	}
	if reverse {
		s.eachReverse(begin, end, emit)
	} else {
		s.eachForward(begin, end, emit)
	}
	if version < s.horizon.Load() {
		s.st.tooOld.Add(1)
		return dst[:n0], ErrTooOld
	}
	return dst, nil
}

func (s *Store) checkRead(ctx context.Context, version uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if version < s.horizon.Load() {
		s.st.tooOld.Add(1)
		return ErrTooOld
	}
	if version > s.visible.Load() {
		return ErrFutureVersion
	}
	return nil
}

// shardIndex returns the shard holding key: the number of splits <= key.
func (s *Store) shardIndex(key []byte) int {
	return sort.Search(len(s.splits), func(i int) bool { return bytes.Compare(s.splits[i], key) > 0 })
}

func (s *Store) shardOf(key []byte) *shard { return s.shards[s.shardIndex(key)] }

// lastShard returns the index of the shard holding the largest key < end.
func (s *Store) lastShard(end []byte) int {
	if end == nil {
		return len(s.shards) - 1
	}
	return sort.Search(len(s.splits), func(i int) bool { return bytes.Compare(s.splits[i], end) >= 0 })
}

// eachForward calls fn on every node in [begin, end) in key order until fn
// returns false. Nodes whose every version is invisible are passed too.
func (s *Store) eachForward(begin, end []byte, fn func(*node) bool) {
	if end != nil && bytes.Compare(begin, end) >= 0 {
		return
	}
	for i, last := s.shardIndex(begin), s.lastShard(end); i <= last; i++ {
		for n := s.shards[i].l.seekGE(begin); n != nil; n = n.next[0].Load() {
			if end != nil && bytes.Compare(n.key, end) >= 0 {
				return
			}
			if !fn(n) {
				return
			}
		}
	}
}

// eachReverse is eachForward in descending key order.
func (s *Store) eachReverse(begin, end []byte, fn func(*node) bool) {
	if end != nil && bytes.Compare(begin, end) >= 0 {
		return
	}
	for i, first := s.lastShard(end), s.shardIndex(begin); i >= first; i-- {
		l := s.shards[i].l
		for n := l.seekLT(end); n != nil; n = l.seekLT(n.key) {
			if bytes.Compare(n.key, begin) < 0 {
				return
			}
			if !fn(n) {
				return
			}
		}
	}
}

func equalAll(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
