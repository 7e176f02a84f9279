package main

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
	"github.com/tierkit/tierkit/cache"
	"github.com/tierkit/tierkit/coalesce"
	"github.com/tierkit/tierkit/txn"
)

// TestOneFetchClaimsAreChecked: the coalesce and cache sections printed
// "-> %d backend fetch" and "-> %d backend load(s)" from their counters but
// went on, exit status 0, whatever the count: a Group or Cache that fetched
// twice for one stampede would have been described, not caught, under titles
// that promise one fetch. The claims are now verified before the line is
// printed. Found by a review.
func TestOneFetchClaimsAreChecked(t *testing.T) {
	ok := coalesce.Stats{Calls: 100, Joins: 99}
	require.NoError(t, verify(coalesceStampedeClaims(100, ok, 1)...))
	err := verify(coalesceStampedeClaims(100, coalesce.Stats{Calls: 100, Joins: 98}, 2)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "share 1 backend fetch, not 2")
	require.Error(t, verify(coalesceStampedeClaims(100, coalesce.Stats{Calls: 99, Joins: 98}, 1)...))

	require.NoError(t, verify(cacheHerdClaims(1000, cache.Stats{Loads: 1, Coalesced: 990, Hits: 9}, 1)...))
	err = verify(cacheHerdClaims(1000, cache.Stats{Loads: 2, Coalesced: 990, Hits: 8}, 2)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "makes 1 backend load, not 2")
}

// TestBatcherOverloadClaimsAreChecked: the batcher section printed "N
// batches in flight = MaxInFlight; next 2,000 requests -> N rejected ...,
// none queued" and "N of the M items in flight served" with no check that N
// was MaxInFlight, 2,000 or M. Found by a review.
func TestBatcherOverloadClaimsAreChecked(t *testing.T) {
	full := batcher.Stats{InFlightBatches: 4, InFlightItems: 128}
	require.NoError(t, verify(batcherOverloadClaims(4, 32, 2000, full, 2000, 128)...))
	err := verify(batcherOverloadClaims(4, 32, 2000, full, 1990, 128)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "none queued, not 1990")
	require.Error(t, verify(batcherOverloadClaims(4, 32, 2000, batcher.Stats{InFlightBatches: 3, InFlightItems: 96}, 2000, 96)...))
	require.Error(t, verify(batcherOverloadClaims(4, 32, 2000, full, 2000, 127)...))
}

// TestRolloutRampClaimsAreChecked: the rollout section printed "N keys left
// the gateway" at each step of a ramp its title calls monotonic, and "kill
// switch on -> N keys routed", without failing when N was not 0. Found by a
// review.
func TestRolloutRampClaimsAreChecked(t *testing.T) {
	require.NoError(t, verify(rolloutRampClaims(5, 0, 3660, 73334)...))
	require.NoError(t, verify(rolloutRampClaims(100, 0, 73334, 73334)...))
	err := verify(rolloutRampClaims(25, 12, 18321, 73334)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "takes no routed key off the gateway, not 12")
	require.Error(t, verify(rolloutRampClaims(100, 0, 73333, 73334)...))
}

// TestHashringClaimsAreChecked: the hashring section printed "every moved key
// was on gw-097: %v" and "fullest host at %.3f of its bound ... (never above
// 1)" whatever the figures: a ring that moved other hosts' keys printed
// "false" and a bounded lookup that overfilled a host printed "1.040 ...
// (never above 1)", and the tour still exited 0. Found by a review.
func TestHashringClaimsAreChecked(t *testing.T) {
	require.NoError(t, verify(hashringRemoveClaims("gw-097", 0)...))
	err := verify(hashringRemoveClaims("gw-097", 3)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "every moved key was on gw-097, not 3 moved from other hosts")

	require.NoError(t, verify(hashringBoundClaims(1)...))
	err = verify(hashringBoundClaims(1.04)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "never above 1 of its bound, not 1.040")
}

// TestCacheFreshnessClaimsAreChecked: the cache section printed "cached read
// still v1; CDC write applied -> next read v2", "not stored (dropped fills
// N), next read vM" and the hit and bypass counts of its staleness bound
// with no check: a cache that kept serving v1 after the stream's write,
// stored a fill older than the invalidation, or served reads past the bound
// would have been printed as such under a title promising CDC freshness and
// bounded staleness, and the tour exited 0. Found by a review.
func TestCacheFreshnessClaimsAreChecked(t *testing.T) {
	require.NoError(t, verify(cacheCDCClaims(1, 1, 2)...))
	err := verify(cacheCDCClaims(1, 1, 1)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "CDC write applied -> next read v2, not v1")
	require.Error(t, verify(cacheCDCClaims(1, 2, 2)...), "the read before the stream's write reloaded")

	require.NoError(t, verify(cacheRacingFillClaims(2, 1, 3)...))
	err = verify(cacheRacingFillClaims(2, 0, 2)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not stored: 1 dropped fill and next read v3, not 0 and v2")

	all, none := staleReads{hits: 50}, staleReads{bypass: 50}
	require.NoError(t, verify(cacheStalenessClaims(50, all, none, 50, all)...))
	err = verify(cacheStalenessClaims(50, all, staleReads{hits: 50}, 0, all)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "stream silent past the bound -> 0 hits, 50 bypasses and reloads, not 50, 0, 0")
	require.Error(t, verify(cacheStalenessClaims(50, none, none, 50, all)...))
	require.Error(t, verify(cacheStalenessClaims(50, all, none, 50, staleReads{hits: 49, bypass: 1})...))
}

// TestTxnWriteSkewClaimsAreChecked: the txn section printed "write skew at
// serializable: commits ok / conflict ... -> N doctor(s) left on call" under
// a title promising serializable validation, but exited 0 for any N: a txn
// that let both doctors go off call (N = 0, the write skew serializable
// exists to stop) would have been printed, not caught. Found by a review.
func TestTxnWriteSkewClaimsAreChecked(t *testing.T) {
	conflict := &txn.ConflictError{Ranges: [][]byte{[]byte("oncall/")}}
	require.NoError(t, verify(txnWriteSkewClaims(nil, conflict, 1)...))
	err := verify(txnWriteSkewClaims(nil, nil, 0)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "leaves exactly 1 doctor on call, not 0")
	assert.Contains(t, err.Error(), "the second conflicts, not ok / ok")
	require.Error(t, verify(txnWriteSkewClaims(nil, conflict, 2)...))
	require.Error(t, verify(txnWriteSkewClaims(conflict, conflict, 2)...))
}

// TestAIMDMemoryGuardClaimsAreChecked: the aimd section printed the memory
// guard's verdict for each heap reading ("500:admit 920:reject 850:reject
// 790:admit 850:admit") under a title promising hysteresis, but exited 0
// whatever the verdicts were, and printed any refusal, a concurrency limit
// as much as the guard, as "reject". A guard that reset at once (850:admit
// after 920) would have been printed, not caught. Found by a review.
func TestAIMDMemoryGuardClaimsAreChecked(t *testing.T) {
	heaps := []uint64{500, 920, 850, 790, 850}
	require.NoError(t, verify(aimdMemoryGuardClaims(heaps, []string{"admit", "reject", "reject", "admit", "admit"})...))
	err := verify(aimdMemoryGuardClaims(heaps, []string{"admit", "reject", "admit", "admit", "admit"})...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "reads 500:admit 920:reject 850:reject 790:admit 850:admit, not 500:admit 920:reject 850:admit 790:admit 850:admit")
	require.Error(t, verify(aimdMemoryGuardClaims(heaps, []string{"admit", "aimd: limit exceeded", "reject", "admit", "admit"})...))
}

// TestControlClaimsAreChecked: the control section printed "POST /control
// asked shed.limit=50000 -> %s (clamped to its bound)" whatever the value
// was, and "a second change 0 s later: refused, retry after %v" with the
// "0 s" written into the format string, not measured. A registry that
// stored 50000, or one whose MinInterval counted from the wrong change,
// would have been printed as such with exit status 0. The clamp is now
// verified, and the refusal line prints the measured gap and checks the
// retry time against it. Found by a review.
func TestControlClaimsAreChecked(t *testing.T) {
	require.NoError(t, verify(controlClampClaims(200, 10_000, 10_000, 1)...))
	err := verify(controlClampClaims(200, 50_000, 50_000, 0)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "shed.limit=50000 clamped to its bound 10000, not 50000 (component 50000)")
	require.Error(t, verify(controlClampClaims(200, 10_000, 100, 1)...), "the component did not get the value")
	require.Error(t, verify(controlClampClaims(400, 10_000, 10_000, 1)...))

	gap := 3 * time.Millisecond
	require.NoError(t, verify(controlRetryClaims(gap, 10*time.Second-time.Millisecond)...))
	err = verify(controlRetryClaims(gap, 5*time.Second)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "must wait out the rest of the 10s MinInterval, not 5s")
	require.Error(t, verify(controlRetryClaims(gap, 11*time.Second)...))
}

// TestControlRefusalGapIsMeasured: the refusal line said "0 s later" as a
// fixed label. Found by a review.
func TestControlRefusalGapIsMeasured(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out, []string{"control"}))
	assert.NotContains(t, out.String(), "0 s later")
	assert.Regexp(t, `a second change [0-9.]+(ns|µs|ms|s) after the POST was sent: refused, retry after 10s`, out.String())
}

// TestTourWaitsAreBounded: the coalesce sections yielded in loops until the
// group counted every reader, waiter or join, and the batcher's overload step
// until the stalled backend held MaxInFlight batches, with no bound; the
// channel receives around them had none either. A package that never got
// there (a Group that stopped counting calls, a batcher that dispatched 3 of
// 4 batches) hung `go run ./examples/tour` for ever instead of failing it.
// Every such wait now gives up after tourWait with what it waited for.
// Found by a review.
func TestTourWaitsAreBounded(t *testing.T) {
	const d = 20 * time.Millisecond
	err := waitFor(d, "4 batches", func() bool { return false })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "waited 20ms for 4 batches")
	require.NoError(t, waitFor(d, "nothing", func() bool { return true }))

	_, err = recvWithin(d, "the fetch to start", make(chan int))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "waited 20ms for the fetch to start")
	ready := make(chan int, 1)
	ready <- 7
	v, err := recvWithin(d, "a value", ready)
	require.NoError(t, err)
	assert.Equal(t, 7, v)

	var wg sync.WaitGroup
	stuck := make(chan struct{})
	defer close(stuck)
	wg.Go(func() { <-stuck })
	err = waitGroupWithin(d, "the held items to be served", &wg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "waited 20ms for the held items to be served")
	var none sync.WaitGroup
	require.NoError(t, waitGroupWithin(d, "nothing", &none))
	assert.GreaterOrEqual(t, tourWait, time.Second, "a loaded machine must not fail a healthy package")
	assert.LessOrEqual(t, tourWait, 10*time.Second, "a few seconds")
}

// TestErrTextPointConflict: errText named a conflict by ce.Ranges[0], and a
// conflict on a point read (the counter's Get) has no ranges: it panicked
// with an index out of range instead of printing the conflict. Found by a
// review.
func TestErrTextPointConflict(t *testing.T) {
	assert.Equal(t, `conflict on "counter"`, errText(&txn.ConflictError{Keys: [][]byte{[]byte("counter")}}))
	assert.Equal(t, `conflict on "oncall/"...`, errText(&txn.ConflictError{Ranges: [][]byte{[]byte("oncall/"), []byte("oncall0")}}))
	assert.NotPanics(t, func() { errText(&txn.ConflictError{}) })
}
