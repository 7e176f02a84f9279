package shed

import "time"

// The Shedder's clock. The scheduler uses only a time's offset from its epoch
// (Scheduler.at), the first time it saw, which came from time.Now and so has
// a monotonic reading: from then on the epoch plus time.Since(epoch) has the
// same offset, in one read of the monotonic clock instead of time.Now's two
// (wall and monotonic), which were half of a rejection's CPU. Such a time's
// wall clock is the epoch's plus the monotonic time since, and drifts from the
// system's if that is stepped; nothing reads it: the offsets, and time.Until
// of the deadlines (times from the epoch too), use the monotonic readings.
// A rejection (bucket full) costs 0.84x the CPU with it: 73.2 against 86.8
// ns in bench/shed's BenchmarkReject, 16 alternating rounds each
// (bench/shed/clock_since_abba.txt).

// nowLocked reads the clock, under s.mu: time.Now until the scheduler has an
// epoch, then the epoch plus the monotonic time since.
func (s *Shedder) nowLocked() time.Time {
	if !s.sched.started {
		return time.Now()
	}
	return s.sched.epoch.Add(time.Since(s.sched.epoch))
}

// sinceLocked and clockAt are nowLocked in two parts, for Acquire's queued
// path: Acquire reads the clock (sinceLocked, inlined) and enqueueLocked
// makes the time (clockAt). Read under enqueueLocked's frame, through
// nowLocked's frame and time.Since's, deeper than time.Now's, the read made
// the stack of a request's goroutine grow there (with a 512-byte frame
// below Acquire), and the growth cost more than where it came before
// (BenchmarkQueuedFreshGoroutine/frame=512: 1.17x the time).
func (s *Shedder) sinceLocked() time.Duration {
	if !s.sched.started {
		return 0
	}
	return time.Since(s.sched.epoch)
}

// clockAt returns the time since after the epoch, or time.Now before the
// scheduler has one (since is then zero).
func (s *Shedder) clockAt(since time.Duration) time.Time {
	if !s.sched.started {
		return time.Now()
	}
	return s.sched.epoch.Add(since)
}
