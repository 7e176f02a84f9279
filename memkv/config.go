package memkv

import (
	"bytes"
	"context"
	"fmt"
	"time"
)

// Config tunes a [Store]. The zero Config is valid: every zero field means the
// documented default.
type Config struct {
	// Splits are the keys at which the key space is cut into range shards:
	// shard i holds [Splits[i-1], Splits[i]). They must be strictly
	// increasing and non-empty. Default: 15 cuts spread over the first key
	// byte (16 shards). Set them to match your key distribution; they cannot
	// change after New (SetConfig rejects a change).
	Splits [][]byte

	// HistoryVersions is the history window, in versions: reads and commits
	// at a read version older than the newest version minus HistoryVersions
	// fail with ErrTooOld, and GC may drop the versions they would need.
	// Default 1<<20.
	HistoryVersions uint64

	// HistoryBytes, if positive, also bounds the window by the bytes its
	// commits wrote (the keys and values of Sets, and the bounds of Clears
	// and WriteRanges, which the window holds): once the commits after the
	// horizon wrote more, the horizon moves up to the oldest commit that
	// leaves them within it (at most the newest version). Without it a key
	// overwritten on every commit holds HistoryVersions copies of its value.
	// The store counts the bytes of every commit in the window, bound or
	// not (16 bytes of bookkeeping per commit), so a bound set by SetConfig
	// holds at once. Default 0: no bound.
	HistoryBytes int64

	// GCStep is how many keys each commit sweeps for garbage (versions older
	// than the horizon). Default 8; negative disables the incremental sweep
	// (call [Store.GC] yourself).
	GCStep int

	// CheckpointEvery emits a checkpoint event on the change feed after every
	// CheckpointEvery commits. Default 16. Call [Store.Checkpoint] to emit one
	// at any time (from a ticker, say, so an idle store still checkpoints:
	// a subscriber that has not taken the last checkpoint gets the new one in
	// its place, so the ticks never fill its buffer).
	CheckpointEvery int

	// FeedBuffer bounds the events buffered per subscriber, plus one
	// checkpoint (checkpoints never cut a subscriber off; its buffer grows
	// and shrinks with what it holds, up to this: it is cut when the subscriber
	// catches up from a backlog small against it). A subscriber that falls further behind
	// is cut off with ErrOverflow. A commit that writes more keys than
	// FeedBuffer cuts off only the subscribers that fall that far behind
	// while it pushes them: a subscriber takes events while a commit pushes
	// them one by one, so one that reads all along may keep up with it.
	// SetConfig changes it for the live subscriptions too: lowered below
	// what one holds, it cuts that one off at its next write (a checkpoint
	// never cuts a subscriber off). Default 4096.
	FeedBuffer int

	// MaxCommitBytes bounds the bytes of keys and values in one commit
	// request's Sets and Clears (the data it writes; read keys, read and
	// write-conflict ranges and the idempotency key are not counted).
	// Default 10 MiB.
	MaxCommitBytes int

	// Faults injects failures for tests. Zero: none.
	Faults Faults

	// Bugs deliberately weakens validation so that test suites can prove
	// they catch it. WARNING: never set outside tests.
	Bugs Bugs
}

// Faults are test hooks on the commit path. Hooks are called outside the
// store's locks.
type Faults struct {
	// Delay, if positive, holds every commit this long before validation
	// (honouring the context; under testing/synctest the wait is virtual).
	Delay time.Duration
	// FailBeforeCommit, if non-nil, is called before validation; if it
	// reports true the commit fails with ErrInjected and nothing is applied.
	FailBeforeCommit func(req *CommitRequest) bool
	// DropReply, if non-nil, is called after a commit was applied; if it
	// reports true the caller gets ErrCommitUnknown instead of the version,
	// as when a reply is lost on the network.
	DropReply func(req *CommitRequest) bool
}

// Bugs are switches that deliberately break validation. The test suite of
// txn must detect each one. WARNING: never set outside tests.
type Bugs struct {
	IgnoreReadKeys   bool // skip point-read validation
	IgnoreReadRanges bool // skip range-read validation
	IgnoreTooOld     bool // accept read versions older than the horizon
}

const (
	defaultHistory    = 1 << 20
	defaultGCStep     = 8
	defaultCheckpoint = 16
	defaultFeedBuffer = 4096
	defaultMaxCommit  = 10 << 20
	defaultShards     = 16
)

// validate reports the first field of c out of range, named with its value,
// as an error wrapping [ErrInvalidConfig].
func (c Config) validate() error {
	for i, s := range c.Splits {
		if len(s) == 0 {
			return invalid("Splits must not contain an empty key")
		}
		if i > 0 && bytes.Compare(c.Splits[i-1], s) >= 0 {
			return invalid("Splits must be strictly increasing (index %d)", i)
		}
	}
	switch {
	case c.CheckpointEvery < 0:
		return invalid("CheckpointEvery %d is negative", c.CheckpointEvery)
	case c.FeedBuffer < 0:
		return invalid("FeedBuffer %d is negative", c.FeedBuffer)
	case c.MaxCommitBytes < 0:
		return invalid("MaxCommitBytes %d is negative", c.MaxCommitBytes)
	case c.HistoryBytes < 0:
		return invalid("HistoryBytes %d is negative", c.HistoryBytes)
	case c.Faults.Delay < 0:
		return invalid("Faults.Delay %v is negative", c.Faults.Delay)
	}
	return nil
}

// invalid returns an error for a Config out of range that wraps
// [ErrInvalidConfig].
func invalid(format string, args ...any) error {
	return fmt.Errorf("memkv: "+format+": %w", append(args, ErrInvalidConfig)...)
}

func (c Config) withDefaults() Config {
	if c.Splits == nil {
		for i := 1; i < defaultShards; i++ {
			c.Splits = append(c.Splits, []byte{byte(i * 256 / defaultShards)})
		}
	} else {
		c.Splits = cloneAll(c.Splits)
	}
	if c.HistoryVersions == 0 {
		c.HistoryVersions = defaultHistory
	}
	if c.GCStep == 0 {
		c.GCStep = defaultGCStep
	}
	if c.CheckpointEvery == 0 {
		c.CheckpointEvery = defaultCheckpoint
	}
	if c.FeedBuffer == 0 {
		c.FeedBuffer = defaultFeedBuffer
	}
	if c.MaxCommitBytes == 0 {
		c.MaxCommitBytes = defaultMaxCommit
	}
	return c
}

func cloneAll(in [][]byte) [][]byte {
	out := make([][]byte, len(in))
	for i, b := range in {
		out[i] = bytes.Clone(b)
	}
	return out
}

// wait blocks for d or until ctx is done.
func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
