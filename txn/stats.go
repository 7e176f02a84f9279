package txn

import (
	"errors"
	"sync/atomic"
)

// ManagerStats is a snapshot of a [Manager]'s counters (monotonic) and
// gauges.
type ManagerStats struct {
	Begun      uint64 // transactions begun
	Committed  uint64 // committed (including deduplicated retries)
	RolledBack uint64 // rolled back by the client or by reaping
	Failed     uint64 // failed commits and operations that ended the transaction
	Unknown    uint64 // commits of unknown outcome

	Conflicts          uint64 // commits failed by a conflict
	ConflictsReadKey   uint64 // of those, naming a key (ConflictError.Keys: a point read, or under Snapshot a written key)
	ConflictsReadRange uint64 // of those, naming a range (ConflictError.Ranges: a range read, or under Snapshot a clear or write-conflict range)
	TooOld             uint64 // commits failed with ErrTooOld
	TooLarge           uint64 // commits failed with ErrTooLarge

	ReapedIdle    uint64 // reaped after IdleTimeout
	ReapedAge     uint64 // reaped after MaxAge
	Overloaded    uint64 // Begins refused with ErrOverloaded
	ReadSetMerges uint64 // read-set merges forced by memory budgets

	Active      int   // gauge: transactions held
	MemoryBytes int64 // gauge: bytes accounted to held transactions
}

// ConflictRate returns Conflicts / (Committed + Conflicts), or 0.
func (s ManagerStats) ConflictRate() float64 {
	if t := s.Committed + s.Conflicts; t > 0 {
		return float64(s.Conflicts) / float64(t)
	}
	return 0
}

type mcounters struct {
	begun, committed, rolledBack, failed, unknown           atomic.Uint64
	conflicts, conflictsKey, conflictsRange, tooOld, tooBig atomic.Uint64
	reapedIdle, reapedAge, overloaded, readSetMerges        atomic.Uint64
}

// Stats returns a snapshot of the manager's counters.
func (m *Manager) Stats() ManagerStats {
	return ManagerStats{
		Begun:              m.st.begun.Load(),
		Committed:          m.st.committed.Load(),
		RolledBack:         m.st.rolledBack.Load(),
		Failed:             m.st.failed.Load(),
		Unknown:            m.st.unknown.Load(),
		Conflicts:          m.st.conflicts.Load(),
		ConflictsReadKey:   m.st.conflictsKey.Load(),
		ConflictsReadRange: m.st.conflictsRange.Load(),
		TooOld:             m.st.tooOld.Load(),
		TooLarge:           m.st.tooBig.Load(),
		ReapedIdle:         m.st.reapedIdle.Load(),
		ReapedAge:          m.st.reapedAge.Load(),
		Overloaded:         m.st.overloaded.Load(),
		ReadSetMerges:      m.st.readSetMerges.Load(),
		Active:             m.Len(),
		MemoryBytes:        m.acct.used.Load(),
	}
}

// countCommitError records the cause of a failed commit.
func (m *Manager) countCommitError(err error) {
	var ce *ConflictError
	switch {
	case errors.As(err, &ce):
		m.st.conflicts.Add(1)
		if len(ce.Keys) > 0 {
			m.st.conflictsKey.Add(1)
		}
		if len(ce.Ranges) > 0 {
			m.st.conflictsRange.Add(1)
		}
	case errors.Is(err, ErrTooOld):
		m.st.tooOld.Add(1)
	case errors.Is(err, ErrTooLarge):
		m.st.tooBig.Add(1)
	}
}
