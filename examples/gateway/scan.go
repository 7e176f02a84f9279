package main

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tierkit/tierkit/memkv"
)

// maxScan bounds the pairs one KVSCAN returns; scanChunk is the least a
// shard's scan reads once it goes on past expired keys.
const (
	maxScan   = 10_000
	scanChunk = 1024
)

// checkKVScan reads a KVSCAN's limit (scanLimit), and refuses one on a
// backend other than memkv.
func checkKVScan(g *Gateway, a [][]byte) (cmdArgs, respErr) {
	if _, ok := asMemkv(g.backend); !ok {
		return cmdArgs{}, "ERR KVSCAN needs the memkv backend"
	}
	limit, bad := scanLimit(a)
	return cmdArgs{n: int64(limit)}, bad
}

// runKVScan is a range scan on the memkv backend: KVSCAN begin end [LIMIT n]
// returns the key, value pairs (flattened) with begin <= key < end in key
// order, at most n (default 100, at most 10,000). An empty end means no upper
// bound. Keys are hashed over shards, so every shard is scanned and the results
// merged; each shard is read at one snapshot, but the shards are not read at
// one common instant. Expired keys are skipped: a shard whose scan they took
// part of the limit of is scanned on past them (in chunks of scanChunk keys
// at least), so that the pairs returned are the first live ones of the range
// (the merge otherwise put another shard's later keys in the place of the
// live keys after them). Expiry is decided by the backend's clock, as for
// GET. checkKVScan has read n, ca.n.
func runKVScan(ctx context.Context, s *session, a [][]byte, ca cmdArgs) any {
	b, _ := asMemkv(s.g.backend)
	limit := int(ca.n)
	begin, end := a[1], a[2]
	if len(end) == 0 {
		end = nil
	}
	// Expiry by the backend's clock, as GET and the other commands on memkv
	// decide it (Gateway.expiryNow); the quota charges at the wall clock.
	now, at := time.Now(), b.now()
	type kv struct{ k, v []byte }
	var all []kv
	var buf [][]byte
	scans := 0
	// The reads made are charged and counted, a failed one included, as a
	// batch that fails is charged as sent.
	defer func() {
		s.g.n.backendCalls.Add(uint64(scans))
		s.g.n.backendOps.Add(uint64(scans)) // a scan per call
		s.tenant.backendCalls.Add(uint64(scans))
		s.tenant.quota.charge(now, float64(scans))
	}()
	var tr *cmdTrace
	if s.g.tracer != nil {
		tr = traceOf(ctx)
	}
	for sh, st := range b.stores {
		rv, from, n, first, again := st.ReadVersion(), begin, 0, len(all), 0
		// size is the keys a pass reads: after the first, a chunk.
		size := limit
		for { // bounded: each pass starts past the last key of the one before
			var err error
			buf, err = st.Scan(ctx, rv, from, end, size, false, buf[:0])
			scans++
			// Each scan is a backend call of one op (a failed one touched
			// its shard too), as the trace of a batched command notes it.
			tr.note(sh, int32(boolInt(err == nil)), viaBatch)
			if errors.Is(err, memkv.ErrTooOld) && again < 100 {
				// The shard's history window passed rv (memkvHistoryBytes):
				// scan it again whole at its newest version, one snapshot.
				rv, from, n, all, again = st.ReadVersion(), begin, 0, all[:first], again+1
				size = limit
				continue
			}
			if err != nil {
				return errReply(err)
			}
			for i := 0; i+1 < len(buf) && n < limit; i += 2 {
				if v, live := decodeValue(buf[i+1], at); live {
					all = append(all, kv{buf[i], v})
					n++
				}
			}
			if len(buf)/2 < size || n >= limit {
				break // the shard's range is done, or it gave its share
			}
			last := buf[len(buf)-2]
			from = append(last[:len(last):len(last)], 0) // the least key after last
			// Past expired keys, read on in chunks: a pass of LIMIT keys
			// made KVSCAN LIMIT 1 one scan, a backend call charged to
			// the quota, per expired key.
			size = max(limit, scanChunk)
		}
	}
	slices.SortFunc(all, func(x, y kv) int { return strings.Compare(string(x.k), string(y.k)) })
	all = all[:min(len(all), limit)]
	out := make([]any, 0, 2*len(all))
	for _, p := range all {
		out = append(out, p.k, p.v)
	}
	return out
}

// scanLimit returns the pairs a KVSCAN of args asks for: its LIMIT, at most
// maxScan, or 100 without one; or the error reply to malformed arguments.
func scanLimit(a [][]byte) (int, respErr) {
	switch {
	case len(a) == 5 && strings.EqualFold(string(a[3]), "LIMIT"):
		n, err := strconv.Atoi(string(a[4]))
		if errors.Is(err, strconv.ErrRange) && n > 0 {
			// Past the int range: a positive integer above maxScan, taken
			// as maxScan as LIMIT 20000 is (it answered that LIMIT must
			// be a positive integer).
			n, err = maxScan, nil
		}
		if err != nil || n <= 0 {
			return 0, respErr("ERR LIMIT must be a positive integer")
		}
		return min(n, maxScan), ""
	case len(a) != 3:
		return 0, respErr("ERR syntax error: KVSCAN begin end [LIMIT n]")
	}
	return 100, ""
}
