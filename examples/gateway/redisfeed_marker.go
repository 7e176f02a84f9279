package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// The caching tier's checkpoint markers on Redis shards (see redisfeed.go):
// the loop that checks a shard's notification flags and flush counts and
// publishes its markers, and the markers' payload.

// markerState is what shard i's marker loop knows of the shard's
// notification settings.
type markerState struct {
	off bool // the last check found notifications that do not cover every change
	// replica: the last check found the shard replicating a primary
	replica bool
	// refused: the last check's read was refused (an error reply: NOPERM)
	refused bool
	// feedUp says the shard's feed is subscribed now; written by the feed's
	// goroutine (followShard), read by the marker loop's.
	feedUp atomic.Bool
	// flushes is the shard's counts (run, flushSignature, INFO calls) read
	// before the latest reset of its cache (by the feed's subscription or by
	// mark); nil: unknown, and the next marker check resets.
	flushes atomic.Pointer[shardCounts]
	// last is the shard's counts at the last check (checked: there was
	// one), read by the marker loop only: see statsZeroed.
	last    shardCounts
	checked bool
}

// flushCommands are the commands that change keys of database 0 with no
// keyspace notification, as their lines of INFO commandstats start (a
// renamed command, one run in MULTI or in a script, is counted under its
// own name). CONFIG SET is one too: notifications turned off, a write, and
// turned on again between two marker checks (in a MULTI, say) leave flags
// that cover every change at both checks and a write announced to nobody.
// Any CONFIG SET counts (the count does not say which parameter it set):
// a cache that starts over after one is only a cost. So does any DEBUG
// (one line for all its subcommands): DEBUG RELOAD and LOADAOF replace the
// data with a file's, announced to nobody, under the same run_id; Redis 7
// refuses DEBUG unless the shard enables it.
//
// REPLICAOF (and SLAVEOF, its old name) too: a shard made a replica loads
// its primary's data with no notification, and one made a primary again
// before the next check is seen by its count alone.
var flushCommands = []string{"cmdstat_flushall:", "cmdstat_flushdb:", "cmdstat_swapdb:", "cmdstat_config|set:", "cmdstat_debug:",
	"cmdstat_replicaof:", "cmdstat_slaveof:"}

// expiryCommands are the flushCommands that can give keys of database 0 an
// expiry that no notification announces: SWAPDB brings database 1's keys
// with theirs, CONFIG SET can turn notifications off around an EXPIRE, and
// DEBUG RELOAD loads a dump's, REPLICAOF a primary's. FLUSHALL and FLUSHDB
// only remove keys.
var expiryCommands = []string{"cmdstat_swapdb:", "cmdstat_config|set:", "cmdstat_debug:", "cmdstat_replicaof:", "cmdstat_slaveof:"}

// expiriesUnseen reports whether one of the expiryCommands ran between the
// flushSignatures prev and cur: the shard must then count as volatile (its
// fills read PTTL). Before, a shard with no expiry when its feed subscribed
// stayed unmarked after a SWAPDB or notifications turned off and on: a key
// given an expiry so was cached with none, and served past its expiry until
// Redis announced it (its active expiry lags under many keys).
func expiriesUnseen(prev, cur string) bool {
	for _, cmd := range expiryCommands {
		if signatureLine(prev, cmd) != signatureLine(cur, cmd) {
			return true
		}
	}
	return false
}

// signatureLine returns the line of a flushSignature that starts with cmd
// ("": none).
func signatureLine(sig, cmd string) string {
	for line := range strings.Lines(sig) {
		if strings.HasPrefix(line, cmd) {
			return line
		}
	}
	return ""
}

// flushSignature returns the lines of an INFO commandstats reply that count
// the flushCommands, in their order: it changes whenever one of them runs
// (or CONFIG RESETSTAT clears the counts, which only costs a reset).
func flushSignature(info string) string {
	var b strings.Builder
	for _, cmd := range flushCommands {
		for line := range strings.Lines(info) {
			if strings.HasPrefix(line, cmd) {
				b.WriteString(strings.TrimSpace(line))
				b.WriteByte('\n')
				break
			}
		}
	}
	return b.String()
}

// mark publishes shard i's checkpoint marker on c, once the shard is seen to
// announce every change still: a client of the shard may set
// notify-keyspace-events to what it needs itself ("Ex" for expired events
// only, a common set-up), and a marker published then would vouch for
// changes that no notification invalidated. The checkpoint is cut before the
// check, so every change before the cut ran while the flags covered it
// (flags turned off and on again between two checks are seen by the count
// of CONFIG SET, below). While they
// do not cover, no marker goes out, so the cache ages out of the bound, and
// mark turns them on again, as the feed's subscription does: a feed that
// still receives the notifications of some classes ("K$") never stays
// silent for feedReadTimeout, so it would never resubscribe, and its cache
// would serve no hit for as long as those writes go on. Once they cover again, the
// shard's cache starts over before the next marker, as after a gap in the
// feed (the changes in between were announced to nobody), and the shard
// counts as volatile (expiries given meanwhile were not announced either)
// until the next resubscription.
//
// With the flags, mark reads the shard's counts of FLUSHALL, FLUSHDB and
// SWAPDB (flushSignature), which Redis announces with no notification, and
// of CONFIG SET, so that flags turned off and on again between two checks
// are seen too: when
// they changed since the latest reset, the shard's cache starts over before
// the marker goes out, so no marker vouches for a value cached before one
// of them ran. The counts are read after the cut, and compared with counts
// read before the reset: every such command before the cut is seen. A shard
// that restarted starts its counts from zero, as after a CONFIG RESETSTAT,
// so mark reads its run_id too (readCounts): counts of another run are no
// baseline. A restart seen by a check before the feed sees its connection
// fail (it will) empties the cache as well (the notifications meanwhile
// went to nobody), the shard counts as volatile until the feed's next
// subscription reads INFO keyspace, and it is not logged as a flush: the
// feed logs its loss and its return.
//
// While the shard is a replica, no marker goes out either (unvouchable), and
// once it is a primary again its cache starts over.
//
// While the feed is down, mark does nothing: no subscriber would receive a
// marker, and a shard that restarted has the flags of its own configuration
// until the feed's next subscription sets them (subscribe), so a check then
// warned of flags that were about to be set, on top of the feed's loss,
// already logged.
func (ct *cacheTier) mark(ctx context.Context, b *redisBackend, i int, c *redis.Client, marker string, m *markerState) {
	if !m.feedUp.Load() {
		return
	}
	cut := time.Now()
	flags, replica, cnt, err := readMarkerCheck(ctx, c)
	if err != nil {
		// A missed checkpoint: the bound ages. A refusal (the shard's ACL
		// changed since the start checked it) lasts: warned of once.
		if isReplyError(err) && !m.refused {
			m.refused = true
			ct.log.Warn("caching tier: a shard refuses the checks its checkpoint markers need; until it allows them, its cache serves each value for at most one staleness bound after its fill",
				"shard", i, "addr", c.Options().Addr, "err", err)
		}
		return
	}
	m.refused = false
	if ct.unvouchable(ctx, b, i, c, flags, replica, m) {
		return
	}
	last := m.flushes.Load()
	zeroed := m.statsZeroed(cnt, last)
	switch {
	case m.off || m.replica:
		msg := "caching tier: a shard's keyspace notifications cover every change again; its cache was emptied"
		if m.replica {
			msg = "caching tier: a shard is a primary again; its cache was emptied"
		}
		m.off, m.replica = false, false
		b.volatile[i].set()
		ct.reset(i)
		m.flushes.Store(&cnt)
		ct.log.Info(msg, "shard", i, "addr", c.Options().Addr)
	case last == nil:
		ct.reset(i)
		m.flushes.Store(&cnt)
	case last.runID != cnt.runID:
		b.volatile[i].set() // keys it loaded were announced by no notification
		ct.reset(i)
		m.flushes.Store(&cnt)
		ct.log.Debug("caching tier: a shard restarted before its feed resubscribed; its cache was emptied", "shard", i, "addr", c.Options().Addr)
	case last.flushes != cnt.flushes || zeroed:
		if zeroed || expiriesUnseen(last.flushes, cnt.flushes) {
			b.volatile[i].set() // before the reset: its fills read PTTL
		}
		ct.reset(i)
		m.flushes.Store(&cnt)
		ct.log.Info("caching tier: FLUSHALL, FLUSHDB, SWAPDB, CONFIG SET, DEBUG, REPLICAOF or CONFIG RESETSTAT ran on a shard; its cache was emptied", "shard", i, "addr", c.Options().Addr)
	}
	publishMarker(ctx, c, marker, cut)
}

// unvouchable reports whether no marker may vouch for shard i's cache now,
// and warns of it once: its notifications no longer cover every change
// (mark turns them on again here), or it replicates a primary (replica): a
// full resync from its primary replaces its data with no notification and
// no command counted, at REPLICAOF or whenever its link is lost and cannot
// resume. Before, a shard demoted so kept its markers, and the values it
// held before the resync were served from the cache as long as they stayed
// cached. Its keys count as volatile: its primary's may have expiries.
func (ct *cacheTier) unvouchable(ctx context.Context, b *redisBackend, i int, c *redis.Client, flags string, replica bool, m *markerState) bool {
	if replica {
		b.volatile[i].set()
		if !m.replica {
			m.replica = true
			ct.log.Warn("caching tier: a shard is a replica; until it is a primary again, its cache serves each value for at most one staleness bound after its fill",
				"shard", i, "addr", c.Options().Addr)
		}
		return true
	}
	if !notificationsCover(flags) {
		if !m.off {
			m.off = true
			ct.log.Warn("caching tier: a shard's keyspace notifications no longer cover every change; until they do, its cache serves each value for at most one staleness bound after its fill",
				"shard", i, "addr", c.Options().Addr, "flags", flags)
		}
		_ = ensureNotifications(ctx, c, ct.log) // failed: the next check tries again
		return true
	}
	return false
}

// readMarkerCheck reads in one round trip what mark checks before a marker:
// shard c's notification flags (CONFIG GET), whether it is a replica (INFO
// replication) and its counts (INFO server and commandstats).
func readMarkerCheck(ctx context.Context, c *redis.Client) (flags string, replica bool, cnt shardCounts, err error) {
	var cfg *redis.MapStringStringCmd
	var server, repl, stats *redis.StringCmd
	if _, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		cfg = p.ConfigGet(ctx, "notify-keyspace-events")
		server, repl, stats = p.Info(ctx, "server"), p.Info(ctx, "replication"), p.Info(ctx, "commandstats")
		return nil
	}); err != nil {
		return "", false, shardCounts{}, err
	}
	return cfg.Val()["notify-keyspace-events"], isReplica(repl.Val()), countsOf(server.Val(), stats.Val()), nil
}

// isReplica reports whether an INFO replication reply says the server
// replicates a primary (role:slave).
func isReplica(info string) bool {
	for line := range strings.Lines(info) {
		if strings.TrimSpace(line) == "role:slave" {
			return true
		}
	}
	return false
}

// publishMarker publishes a checkpoint marker on c. The payload is the time
// the checkpoint was cut (taken before the PUBLISH runs, so never late): the
// bound counts from it, not from the marker's arrival. A failed publish is a
// missed checkpoint: the bound ages.
func publishMarker(ctx context.Context, c *redis.Client, marker string, cut time.Time) {
	_ = c.Publish(ctx, marker, markerPayload(cut)).Err()
}

// markerBase is the origin of the markers' cuts. A marker comes back to the
// gateway that published it (its channel is this process's own), so its cut
// travels as nanoseconds since markerBase, on the monotonic clock, which the
// cache's bound is measured on. Sent as wall-clock time (unix ns), a cut came
// back without a monotonic reading: after the wall clock was set back by
// more than the bound, every checkpoint was already stale when it arrived,
// and entries left the cache one bound after their fill, however fresh the
// feed kept them.
var markerBase = time.Now()

// markerKey authenticates the cuts this process publishes (markerMAC). The
// marker channel is no secret (PUBSUB CHANNELS names it, and any client may
// SUBSCRIBE to it and read the payloads), so another client can PUBLISH on
// it: a bare number was taken for a cut, and one at or past the message's
// arrival made it a checkpoint as of then, vouching for the changes still on
// their way to a feed that lags. A payload of this process's own that
// another client replays is a safe checkpoint: its cut was taken before the
// PUBLISH that first carried it, so before the replay's too.
var markerKey = func() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k) // never fails (crypto/rand)
	return k
}()

// markerMACLen is the bytes of the MAC a marker's payload carries.
const markerMACLen = 16

// markerMAC returns the MAC of a marker's cut, its decimal digits.
func markerMAC(cut []byte) []byte {
	m := hmac.New(sha256.New, markerKey)
	m.Write(cut)
	return m.Sum(nil)[:markerMACLen]
}

// markerPayload is the payload of a marker cut at cut: the cut and its MAC.
func markerPayload(cut time.Time) string {
	ns := strconv.AppendInt(nil, int64(cut.Sub(markerBase)), 10)
	return string(ns) + "." + hex.EncodeToString(markerMAC(ns))
}

// markerCut is the cut of a marker's payload (zero: unreadable, or not
// made by this process, and no checkpoint: checkpointed).
func markerCut(payload []byte) time.Time {
	cut, sum, ok := bytes.Cut(payload, []byte("."))
	var mac [markerMACLen]byte
	if !ok || hex.DecodedLen(len(sum)) != len(mac) {
		return time.Time{}
	}
	if _, err := hex.Decode(mac[:], sum); err != nil || !hmac.Equal(mac[:], markerMAC(cut)) {
		return time.Time{}
	}
	ns, err := strconv.ParseInt(string(cut), 10, 64)
	if err != nil {
		return time.Time{}
	}
	return markerBase.Add(time.Duration(ns))
}
