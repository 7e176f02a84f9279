package main

import (
	"context"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// shardCounts is what the caching tier reads of a shard's command counts:
// its run (INFO server run_id, new at every start of the server), its
// flushSignature and its count of INFO calls (INFO commandstats). Counts are
// comparable only within one run: a shard that restarted starts them from
// zero, which the counts alone cannot tell from a CONFIG RESETSTAT.
type shardCounts struct {
	runID     string
	flushes   string
	infoCalls int64
}

// readCounts reads shard c's counts in one round trip.
func readCounts(ctx context.Context, c *redis.Client) (*shardCounts, error) {
	var server, stats *redis.StringCmd
	if _, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		server, stats = p.Info(ctx, "server"), p.Info(ctx, "commandstats")
		return nil
	}); err != nil {
		return nil, err
	}
	cnt := countsOf(server.Val(), stats.Val())
	return &cnt, nil
}

// countsOf returns the counts of an INFO server and an INFO commandstats
// reply of one connection.
func countsOf(server, stats string) shardCounts {
	return shardCounts{runID: runID(server), flushes: flushSignature(stats), infoCalls: infoCalls(stats)}
}

// runID returns the run_id of an INFO server reply ("": none).
func runID(info string) string {
	for line := range strings.Lines(info) {
		if id, ok := strings.CutPrefix(line, "run_id:"); ok {
			return strings.TrimSpace(id)
		}
	}
	return ""
}

// statsZeroed reports whether the shard's command counts were zeroed (CONFIG
// RESETSTAT) since the last check, from the counts cur of this one, and
// records them. The flushSignature alone misses it when the same commands
// ran after the RESETSTAT, in the same time, as before it (one FLUSHALL of
// an empty database takes 13-20 us): the lines are then the same, and the
// flush was not seen. Every check runs an INFO, so the count of INFO calls
// rises from one check to the next, unless the counts were zeroed in
// between (and other clients ran fewer INFOs after it than had run before).
// The counts compared with are the last check's, or, if that one read
// another run of the server (or none), those read at the latest reset
// (atReset, which may be nil): a shard that restarted starts its counts
// from zero too, and that is no RESETSTAT (mark tells a restart by its
// run_id). With neither of the same run, nothing is known: false.
func (m *markerState) statsZeroed(cur shardCounts, atReset *shardCounts) bool {
	prev, checked := m.last, m.checked
	m.last, m.checked = cur, true
	switch {
	case checked && prev.runID == cur.runID:
		return cur.infoCalls <= prev.infoCalls
	case atReset != nil && atReset.runID == cur.runID:
		return cur.infoCalls <= atReset.infoCalls
	}
	return false
}

// infoCalls returns the calls of INFO in an INFO commandstats reply (0: none
// counted, as right after the counts were zeroed).
func infoCalls(info string) int64 {
	for line := range strings.Lines(info) {
		if fields, ok := strings.CutPrefix(line, "cmdstat_info:calls="); ok {
			n, _ := strconv.ParseInt(fields[:strings.IndexAny(fields+",", ",\r\n")], 10, 64)
			return n
		}
	}
	return 0
}
