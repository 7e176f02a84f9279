package memkv

import "sync/atomic"

// Stats is a snapshot of a store's counters (monotonic) and gauges.
type Stats struct {
	Commits          uint64 // commits applied (read-only ones included)
	Conflicts        uint64 // commits rejected by validation
	ConflictKeys     uint64 // of those, with a conflicting point read
	ConflictRanges   uint64 // of those, with a conflicting range read
	TooOld           uint64 // reads and commits rejected with ErrTooOld
	TooLarge         uint64 // commits rejected with ErrTooLarge
	AlreadyCommitted uint64 // commits deduplicated by idempotency key
	Injected         uint64 // commits failed by Faults.FailBeforeCommit
	DroppedReplies   uint64 // commits applied whose reply Faults.DropReply dropped
	Reads            uint64 // point reads that reached the data (one cut by GC counts in TooOld too)
	Scans            uint64 // range reads, counted like Reads
	GCRuns           uint64 // full GC sweeps (Store.GC calls; commits' incremental sweeps are not counted)
	GCFreed          uint64 // versions freed, by Store.GC and by commits' incremental sweeps (a deletion marker removed with its key counts one)
	FeedEvents       uint64 // write events published
	FeedOverflows    uint64 // subscribers cut off

	Version     uint64 // gauge: newest committed version
	Horizon     uint64 // gauge: oldest readable version
	Keys        int64  // gauge: keys held (including deletion markers)
	Versions    int64  // gauge: versions held
	Shards      int    // number of range shards
	Subscribers int    // gauge: change-feed subscriptions open and not cut off
}

// ConflictRate returns Conflicts / (Commits + Conflicts), or 0.
func (s Stats) ConflictRate() float64 {
	if t := s.Commits + s.Conflicts; t > 0 {
		return float64(s.Conflicts) / float64(t)
	}
	return 0
}

type counters struct {
	commits, conflicts, conflictKeys, conflictRanges atomic.Uint64
	tooOld, tooLarge, already, injected, dropped     atomic.Uint64
	reads, scans, gcRuns, gcFreed                    atomic.Uint64
	feedEvents, feedOverflows                        atomic.Uint64
	subscribers                                      atomic.Int64
}

// Stats returns a snapshot of the store's counters.
func (s *Store) Stats() Stats {
	st := Stats{
		Commits:          s.st.commits.Load(),
		Conflicts:        s.st.conflicts.Load(),
		ConflictKeys:     s.st.conflictKeys.Load(),
		ConflictRanges:   s.st.conflictRanges.Load(),
		TooOld:           s.st.tooOld.Load(),
		TooLarge:         s.st.tooLarge.Load(),
		AlreadyCommitted: s.st.already.Load(),
		Injected:         s.st.injected.Load(),
		DroppedReplies:   s.st.dropped.Load(),
		Reads:            s.st.reads.Load(),
		Scans:            s.st.scans.Load(),
		GCRuns:           s.st.gcRuns.Load(),
		GCFreed:          s.st.gcFreed.Load(),
		FeedEvents:       s.st.feedEvents.Load(),
		FeedOverflows:    s.st.feedOverflows.Load(),
		Version:          s.visible.Load(),
		Horizon:          s.horizon.Load(),
		Shards:           len(s.shards),
	}
	for _, sh := range s.shards {
		st.Keys += sh.keys.Load()
		st.Versions += sh.versions.Load()
	}
	st.Subscribers = int(s.st.subscribers.Load())
	return st
}
