package main

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"
)

// A Redis shard's replicas as the read path sees them: each one's health,
// the retry that probes one marked down, and the round robin that picks the
// replica a read batch goes to (redisBackend.Do sends it there).

// replica is one replica of a shard: its data path and its health. A read
// that fails on a replica (down, hung past its half of the time, refusing
// reads) marks it down, as a failed batch marks a shard (health.go: one
// warning per outage, gateway_backend_replica_up): reads then skip it and go
// to the shard's other replicas, or to the primary, rather than each wait
// on it again, and once per replicaRetry one read tries it (the probe); the
// first read it answers marks it up. Without this, a replica that hung cost
// every read batch routed to it half the request timeout, for as long as it
// hung, and nothing showed that the reads had all moved to the primary.
type replica struct {
	data   dataClient
	shard  int    // its shard
	index  int    // its place in the shard's list of replicas
	addr   string // as configured
	health shardHealth
	retry  atomic.Int64 // unix ns: while down, when a read may try it next
}

// replicaRetry is how long reads skip a replica that failed before one
// tries it again: at most one read batch per replica per replicaRetry waits
// on a replica that is down (up to half its time).
const replicaRetry = time.Second

// readable reports whether a read at now may go to r: r is up, or it is
// down and its retry is due, and this read is the one that takes it (the
// others skip r until the next retry).
func (r *replica) readable(now time.Time) bool {
	if !r.health.down.Load() {
		return true
	}
	at, ns := r.retry.Load(), now.UnixNano()
	return ns >= at && r.retry.CompareAndSwap(at, ns+int64(replicaRetry))
}

// pickReplica returns the replica of shard that a read at now goes to: the
// next one round robin, or after it the first that is readable; nil when
// none is (the read goes to the primary). Skipping replicas moves the round
// robin past the one picked, so the next read starts after it: with one of
// three down, the other two take half the reads each, not two in three and
// one in three.
func (b *redisBackend) pickReplica(shard int, now time.Time) *replica {
	reps := b.dataReplicas[shard]
	// The shard's own counter: one shared by the shards would send all of a
	// shard's reads to one replica when reads alternate shards. Unsigned: no
	// negative index after 2^31 batches on 32-bit.
	n := b.next[shard].Add(1)
	for i := range uint32(len(reps)) {
		if r := reps[(n+i)%uint32(len(reps))]; r.readable(now) {
			if i > 0 {
				b.next[shard].Add(i)
			}
			return r
		}
	}
	return nil
}

// failed records a read that failed on r (err) at now, unless its batch's
// own context ended (the read was not r's to answer).
func (r *replica) failed(ctx context.Context, err error, now time.Time, log *slog.Logger) {
	if ctx.Err() != nil {
		return
	}
	r.retry.Store(now.UnixNano() + int64(replicaRetry)) // before it is marked down: no read takes it meanwhile
	r.health.fail(err, now, log, "backend replica unreachable: its shard's reads skip it until it answers",
		"shard", r.shard, "replica", r.index, "addr", r.addr)
}

// answered records a read that r answered.
func (r *replica) answered(log *slog.Logger) {
	if r.health.down.Load() {
		r.health.answered(time.Now, log, "backend replica answers again", "shard", r.shard, "replica", r.index, "addr", r.addr)
	}
}
