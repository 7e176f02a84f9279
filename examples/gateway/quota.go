package main

import (
	"sync"
	"time"
)

// quota is a tenant's allowance of backend calls: a token bucket charged after
// batching and coalescing, when a flush actually calls the backend, so a
// tenant whose requests batch well stretches its allowance. Admission refuses
// a tenant whose bucket is empty; a flush may take it into debt (a batch
// already formed is not failed), which later admissions pay back.
type quota struct {
	mu     sync.Mutex
	rate   float64 // tokens per second; 0 means unlimited
	burst  float64
	tokens float64
	at     time.Time
}

func newQuota(rate float64, burst int) *quota {
	b := float64(burst)
	if b == 0 {
		b = max(1, rate)
	}
	return &quota{rate: rate, burst: b, tokens: b}
}

func (q *quota) refillLocked(now time.Time) {
	if q.at.IsZero() {
		q.at = now
		return
	}
	if el := now.Sub(q.at); el > 0 {
		q.tokens = min(q.burst, q.tokens+el.Seconds()*q.rate)
		q.at = now
	}
}

// allow reports whether the tenant has allowance left.
func (q *quota) allow(now time.Time) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.rate == 0 {
		return true
	}
	q.refillLocked(now)
	return q.tokens >= 1
}

// charge takes n backend calls from the allowance.
func (q *quota) charge(now time.Time, n float64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.rate == 0 {
		return
	}
	q.refillLocked(now)
	q.tokens -= n
}

// setRate and setBurst change the rate or the burst (control knobs) at now:
// the time before refills at the old rate, the time after at the new one.
func (q *quota) setRate(now time.Time, rate float64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.setLocked(now, rate, q.burst)
}

func (q *quota) setBurst(now time.Time, burst float64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.setLocked(now, q.rate, burst)
}

// An unlimited tenant's bucket is full: a quota switched on starts at its
// burst, as a tenant configured with a quota does (and as aimd's bucket that
// SetConfig enables), whatever the tenant owed when the quota was switched
// off. Its calls while unlimited were not charged, so a debt kept from
// before throttled it at once for calls it made under another quota.
func (q *quota) setLocked(now time.Time, rate, burst float64) {
	if q.rate != 0 {
		q.refillLocked(now)
	} else {
		q.at = now
	}
	q.rate, q.burst = rate, max(burst, 1)
	if q.rate == 0 {
		q.tokens = q.burst
	}
	q.tokens = min(q.tokens, q.burst)
}

// get returns the rate, the burst and the tokens left at now (refilled up to
// now, as the next admission would see them, not as the last charge left
// them).
func (q *quota) get(now time.Time) (rate, burst, tokens float64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.rate != 0 {
		q.refillLocked(now)
	}
	return q.rate, q.burst, q.tokens
}
