package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tierkit/tierkit/cache"
)

// The caching tier on Redis shards. Redis has no change log with versions, but
// it announces every change to a key as a keyspace notification, published to
// the subscribers in the order the commands ran; a message this gateway
// PUBLISHes on its own channel reaches it after the notifications of every
// command that ran before it. So each shard's feed is:
//
//   - one subscriber connection per shard (primary) with PSUBSCRIBE on
//     __keyspace@0__:* and SUBSCRIBE on a marker channel private to this
//     gateway; every message received is numbered (the version);
//   - a keyspace message invalidates its key (cache.Write without refill);
//   - a marker message is a checkpoint: every change that ran before its
//     PUBLISH has been delivered. Its payload is the time it was cut
//     (cache.Event.Cut), so the bound counts from before the PUBLISH, and the
//     delivery delay does not stretch it; with an HMAC of this process's, so
//     that no other client's PUBLISH on the channel is a checkpoint. A ticker publishes one every
//     staleness/4 (between 1 ms and 100 ms), so an idle shard keeps the
//     bound renewed, once it has checked that the shard's notification
//     flags still cover every change (mark);
//   - a (re)subscription confirmation replaces the shard's cache with an empty
//     one: the notifications sent while the connection was down are lost, so
//     nothing cached before it is trusted. Between the loss and the new
//     subscription no checkpoint arrives (markers travel on the same
//     connection), so the old entries age out of the staleness bound as the
//     cache's contract says: no read is served staler than the bound.
//
// Fills read the primary (a replica may be behind the invalidations the
// primary announced). On a shard that may hold keys with an expiry they fetch
// the keys' PTTL in the same round trip, so a value with an expiry leaves the
// cache when it expires rather than when Redis gets round to announcing it. A
// shard counts as volatile when INFO keyspace, read at each (re)subscription,
// shows keys with an expiry or INFO persistence shows it loading its dataset
// (a restart with persistence: the keys it loads are announced by no
// notification), and from the first notification that can give a key one
// (expire, rename_to, move_to, restore, copy_to), or from a SWAPDB, CONFIG
// SET, DEBUG or REPLICAOF seen by the marker check (expiriesUnseen), or a
// check that finds the shard a replica, until the next
// resubscription; that notification also invalidates the fills of its key
// in flight, and the entries filled before it. A write through the gateway
// that gives a key an expiry makes the shard volatile before it is sent
// (opsGiveExpiry, expiryFlag): its client's next GET may fill before the feed
// delivers the notification, and would cache the key with no expiry.
//
// Not announced by Redis: FLUSHDB, FLUSHALL and SWAPDB. The marker loop
// sees them run in the shard's command counts (INFO commandstats, read with
// the flags before each marker), and the shard's cache then starts over
// before the next marker. Nor is the data a replica loads from its primary:
// while the shard is a replica (REPLICAOF run on it) no marker goes out, and
// its cache starts over once it is a primary again. Not seen at all: changes
// in other databases than 0.

// keyspacePattern matches the keyspace notifications of database 0.
const keyspacePattern = "__keyspace@0__:*"

// markerPrefix starts the name of a gateway's marker channel (a random
// suffix per process).
const markerPrefix = "__tierkit:checkpoint:"

// ensureNotifications makes sure shard c announces every change to a key:
// notify-keyspace-events needs K (keyspace channel) and A (every class).
// The generic and string classes alone (g$xe) are not enough: a write of
// another class can replace a cached string (SUNIONSTORE and ZUNIONSTORE
// onto it are set and zset events, SORT ... STORE a list event), and the
// cache would keep the string while markers vouch for it. Missing flags
// are added with CONFIG SET.
func ensureNotifications(ctx context.Context, c *redis.Client, log *slog.Logger) error {
	cur, err := c.ConfigGet(ctx, "notify-keyspace-events").Result()
	if err != nil {
		return fmt.Errorf("caching tier: shard %s needs notify-keyspace-events with K and A, and CONFIG GET failed: %w", c.Options().Addr, err)
	}
	flags := cur["notify-keyspace-events"]
	if notificationsCover(flags) {
		return nil
	}
	want := flags + "KA"
	if err := c.ConfigSet(ctx, "notify-keyspace-events", want).Err(); err != nil {
		return fmt.Errorf("caching tier: shard %s needs notify-keyspace-events with K and A (has %q) and CONFIG SET failed: %w",
			c.Options().Addr, flags, err)
	}
	log.Info("caching tier: enabled keyspace notifications", "shard", c.Options().Addr, "was", flags, "now", want)
	return nil
}

// notificationsCover reports whether notify-keyspace-events flags announce
// every change to a key on its keyspace channel. Redis reports a set of
// classes that makes up A as A.
func notificationsCover(flags string) bool {
	return strings.Contains(flags, "K") && strings.Contains(flags, "A")
}

// followRedis checks every shard's notification settings, then keeps each
// cache fresh from its shard's notifications. A shard that does not answer
// (down, unreachable) is not waited for: its keys fail until it is up, as
// without the tier, and its feed subscribes once it is, checking the flags
// then (subscribe). Until then no marker vouches for its cache: a value
// filled meanwhile is served for at most one staleness bound after its fill
// (the fill vouches for it), and invalidated by nothing but the gateway's
// own writes.
func (ct *cacheTier) followRedis(ctx context.Context, b *redisBackend) error {
	reachable, err := ct.checkShards(ctx, b)
	if err != nil {
		return err
	}
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	marker := markerPrefix + hex.EncodeToString(nonce[:])
	period := func() time.Duration {
		return min(max(ct.config().MaxStaleness/4, time.Millisecond), 100*time.Millisecond)
	}
	ready := make(chan error, len(b.shards))
	waits := 0
	for i, c := range b.shards {
		m := new(markerState)
		r := ready
		if !reachable[i] {
			r = nil // a refusal once it is up is warned of, as a later one is
		} else {
			waits++
		}
		ct.wg.Go(func() { ct.followShard(ct.ctx, b, i, marker, r, m) })
		ct.wg.Go(func() { every(ct.ctx, period, ct.boundChanged, func() { ct.mark(ct.ctx, b, i, c, marker, m) }) })
	}
	// Serve only once every reachable shard's notifications and markers
	// flow; a shard that refuses either subscription fails the start, as
	// one that refuses the flags does: its cache would never serve a hit.
	for range waits {
		select {
		case err := <-ready:
			if err != nil {
				return err
			}
		case <-ctx.Done():
			return fmt.Errorf("caching tier: subscribing to the shards' keyspace notifications: %w", ctx.Err())
		}
	}
	return nil
}

// checkShards checks (and sets) every shard's notification flags and that
// it allows the checks its markers need. A refusal (an error reply) fails
// the start; a shard that does not answer is reported unreachable and
// logged (before, it failed the start: one shard down kept the gateway
// from serving any).
func (ct *cacheTier) checkShards(ctx context.Context, b *redisBackend) ([]bool, error) {
	reachable := make([]bool, len(b.shards))
	for i, c := range b.shards {
		err := ensureNotifications(ctx, c, ct.log)
		if err == nil {
			// Every marker check reads these: a shard that refuses them
			// (an ACL user without INFO) would have the check fail each
			// time, no marker go out, and its cache serve a key only
			// within one bound of its fill, without a word. The start
			// fails instead, as for the flags and the subscriptions.
			if _, _, _, err = readMarkerCheck(ctx, c); err != nil {
				err = fmt.Errorf("caching tier: shard %s refused the checks its checkpoint markers need (an ACL needs CONFIG GET and INFO): %w", c.Options().Addr, err)
			}
		}
		switch {
		case err == nil:
			reachable[i] = true
		case isReplyError(err) || ctx.Err() != nil:
			return nil, err
		default:
			ct.log.Warn("caching tier: a shard does not answer at start; its keys fail until it answers, and until its feed subscribes its cache serves each value for at most one staleness bound after its fill",
				"shard", i, "addr", c.Options().Addr, "err", err)
		}
	}
	return reachable, nil
}

// givesExpiry holds the keyspace events that can give a key an expiry.
var givesExpiry = map[string]bool{"expire": true, "rename_to": true, "move_to": true, "restore": true, "copy_to": true}

// keysWithExpiry returns the number of keys with an expiry on c, over all its
// databases (INFO keyspace: "db0:keys=10,expires=2,avg_ttl=0"). A shard
// that is still loading its dataset (restarted with persistence; it serves
// subscriptions and INFO meanwhile) counts only the keys loaded so far, and
// the keys it loads next make no notification: it has no count
// (errShardLoading), so it stays volatile. INFO persistence is read first,
// so a shard that says it has finished loading shows every key after.
func keysWithExpiry(ctx context.Context, c *redis.Client) (int, error) {
	p, err := c.Info(ctx, "persistence").Result()
	if err != nil {
		return 0, err
	}
	if shardLoading(p) {
		return 0, errShardLoading
	}
	s, err := c.Info(ctx, "keyspace").Result()
	if err != nil {
		return 0, err
	}
	return parseExpires(s)
}

// errShardLoading: the shard is loading its dataset.
var errShardLoading = errors.New("caching tier: shard loading its dataset")

// shardLoading reports whether an INFO persistence reply says the server is
// loading its dataset (loading:1, or async_loading:1 on a replica).
func shardLoading(info string) bool {
	for line := range strings.Lines(info) {
		switch strings.TrimSpace(line) {
		case "loading:1", "async_loading:1":
			return true
		}
	}
	return false
}

// parseExpires sums the expires= fields of an INFO keyspace reply.
func parseExpires(info string) (int, error) {
	total := 0
	for line := range strings.Lines(info) {
		_, fields, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(line, "db") {
			continue
		}
		for f := range strings.SplitSeq(fields, ",") {
			if v, ok := strings.CutPrefix(f, "expires="); ok {
				n, err := strconv.Atoi(v)
				if err != nil {
					return 0, fmt.Errorf("INFO keyspace: %q: %w", line, err)
				}
				total += n
			}
		}
	}
	return total, nil
}

// followShard applies shard i's notifications to its cache until ctx ends.
// It sends nil on ready once the first subscription is whole (PSUBSCRIBE and
// the marker's SUBSCRIBE confirmed), or, if the shard refuses it first (an
// error reply: an ACL without the channel or the pattern), that error, and
// returns: the gateway does not start. ready may be nil. The
// subscription runs on a connection of its own, read by a parser of its own
// (feedconn.go): general clients cost the gateway a fifth of its CPU here
// under 200,000 SETs a second (go-redis's Receive set a read deadline and
// made a call per message; rueidis allocated a message and its strings per
// frame). When the connection fails it is dialed again, with backoff
// (feedBackoff), and subscribed again; the confirmation resets the cache.
func (ct *cacheTier) followShard(ctx context.Context, b *redisBackend, i int, marker string, ready chan<- error, m *markerState) {
	var bo feedBackoff
	var fl feedLosses
	for {
		since, err := ct.subscribe(ctx, b, i, marker, &ready, fl.logBack(), m)
		m.feedUp.Store(false)
		if ctx.Err() != nil {
			return
		}
		addr := b.shards[i].Options().Addr
		if ready != nil && errors.Is(err, errFeedRefused) {
			ready <- fmt.Errorf("caching tier: shard %s refused the subscription to its keyspace notifications or to the gateway's marker channel (an ACL needs the channels %s and %s*): %w",
				addr, keyspacePattern, markerPrefix, err)
			return
		}
		now := time.Now()
		switch warn, unlogged := fl.failed(!since.IsZero(), now); {
		case warn:
			ct.log.Warn("caching tier: lost a shard's change feed; until it is back, its cache serves each value for at most one staleness bound after its fill",
				"shard", i, "addr", addr, "err", err, "unlogged_losses", unlogged)
		default:
			ct.log.Debug("caching tier: change feed down", "shard", i, "addr", addr, "err", err)
		}
		var upFor time.Duration
		if !since.IsZero() {
			upFor = now.Sub(since)
		}
		if !ct.waitFeed(ctx, bo.next(upFor)) {
			return
		}
	}
}

// waitFeed waits d before a feed dials again, or until ctx ends (false).
func (ct *cacheTier) waitFeed(ctx context.Context, d time.Duration) bool {
	if ct.feedWait != nil {
		return ct.feedWait(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Bounds of a feed's backoff, and the time its subscription must hold for
// the backoff to start over.
const (
	feedBackoffMin = 10 * time.Millisecond
	feedBackoffMax = time.Second
	feedHealthy    = time.Second
)

// feedBackoff is the wait of a shard's feed before it dials again: it
// doubles after each failure, from feedBackoffMin up to feedBackoffMax, and
// starts over only after a subscription that held feedHealthy. It used to
// start over after any confirmed subscription: a shard that confirmed
// PSUBSCRIBE and refused the marker's SUBSCRIBE (an ACL without the
// channel) had the feed dial, subscribe, fail and empty the cache every
// 10 ms or so, a 1 MiB read buffer each time, for as long as it refused.
type feedBackoff struct{ d time.Duration }

// next returns the wait after a failure of the feed whose subscription held
// upFor (0: it did not subscribe).
func (bo *feedBackoff) next(upFor time.Duration) time.Duration {
	if bo.d == 0 || upFor >= feedHealthy {
		bo.d = feedBackoffMin
	} else {
		bo.d = min(2*bo.d, feedBackoffMax)
	}
	return bo.d
}

// feedLosses decides which failures of a shard's feed are logged: a loss
// once, not every failed retry after it, and at most once per healthLogEvery
// if the feed keeps failing after it subscribes (a subscriber the server
// disconnects for its output buffer); the next warning counts the losses not
// logged. The feed's return is logged when its loss was.
type feedLosses struct {
	lost     bool // the feed failed, and has not been subscribed again since
	logged   bool // and that loss was logged
	lastWarn time.Time
	unlogged int // losses not logged since lastWarn
}

// failed records a failure of the feed, which had subscribed before failing
// or not, at now; warn says to log it, with the count of losses not logged.
func (fl *feedLosses) failed(subscribed bool, now time.Time) (warn bool, unlogged int) {
	defer func() { fl.lost = true }()
	if !subscribed && fl.lost {
		return false, 0 // a retry that failed: the loss is still the same
	}
	if !fl.lastWarn.IsZero() && now.Sub(fl.lastWarn) < healthLogEvery {
		fl.unlogged++
		fl.logged = false
		return false, 0
	}
	unlogged = fl.unlogged
	fl.lastWarn, fl.unlogged, fl.logged = now, 0, true
	return true, unlogged
}

// logBack reports whether the feed's return is to be logged.
func (fl *feedLosses) logBack() bool { return fl.lost && fl.logged }

// subscribe follows shard i's notifications on one connection, until it fails
// or ctx ends. Every frame received is numbered in order (the version of the
// change it announces); a PSUBSCRIBE confirmation resets the shard's cache.
// since is when the subscription was whole, the marker channel's confirmed
// too (zero: it was not): a feed without its markers vouches for nothing,
// so a SUBSCRIBE the shard refuses is a failure to subscribe, not a loss of
// the feed (feedLosses), logged once, and its return not logged. logBack
// says the feed was down before this call, and logged so, so that its
// return is logged. It keeps m's feedUp, and the flush counts read before
// the reset (mark). Once the subscription is whole it sends nil on *ready,
// if not nil, and sets it to nil.
func (ct *cacheTier) subscribe(ctx context.Context, b *redisBackend, i int, marker string, ready *chan<- error, logBack bool, m *markerState) (since time.Time, err error) {
	opt := b.shards[i].Options()
	c, fr, done, err := feedDial(ctx, opt.Addr, opt.Username, opt.Password, opt.TLSConfig, opt.DialTimeout)
	if err != nil {
		return since, err
	}
	defer done()
	// A shard that restarted is back with its own configuration, which may
	// announce nothing: markers would then keep vouching for entries that
	// no notification invalidates. So the flags are checked (and set) before
	// every subscription, whose confirmation empties the cache.
	if err := ensureNotifications(ctx, b.shards[i], ct.log); err != nil {
		return since, err
	}
	if err := writeCommand(c, "PSUBSCRIBE", keyspacePattern); err != nil {
		return since, err
	}
	if err := writeCommand(c, "SUBSCRIBE", marker); err != nil {
		return since, err
	}
	psubscribed := false
	var seq uint64
	// Invalidations wait in pend while the next frame is already in the read
	// buffer, and go to the cache in one Apply, which looks their keys up
	// ahead (cache.Apply): a busy feed brings tens of notifications per read.
	// Their keys alias the reader's buffer, so pend is applied before any
	// read, and before a checkpoint or a reset, which must follow them.
	var pendBuf [feedApplyBatch]cache.Event[string, cached]
	pend := pendBuf[:0]
	apply := func() {
		if len(pend) > 0 {
			ct.caches[i].Load().Apply(pend...)
			clear(pend)
			pend = pend[:0]
		}
	}
	for {
		f, ok := fr.nextIfBuffered()
		if !ok {
			apply()
			var err error
			if f, err = fr.nextGeneral(); err != nil { // nextIfBuffered just failed
				if ctx.Err() != nil {
					return since, ctx.Err()
				}
				return since, err
			}
		}
		seq++
		switch f.kind {
		case framePSubscribe:
			apply()
			ct.psubscribed(ctx, b, i, m)
			psubscribed = true
		case frameSubscribe:
			if psubscribed && since.IsZero() && string(f.channel) == marker {
				since = time.Now()
				if *ready != nil {
					*ready <- nil
					*ready = nil
				}
				if logBack {
					ct.log.Info("caching tier: a shard's change feed is back; its cache was emptied", "shard", i, "addr", opt.Addr)
				}
			}
		case frameMessage, framePMessage:
			if ev, ok := ct.notified(b, i, marker, seq, f.channel, f.payload); ok {
				if pend = append(pend, ev); len(pend) == cap(pend) {
					apply()
				}
			} else {
				apply()
				ct.checkpointed(i, seq, f.channel, f.payload, marker)
			}
		}
	}
}

// psubscribed handles the confirmation of shard i's PSUBSCRIBE: the
// notifications sent before it are lost, so the shard's cache starts over,
// with the flush counts read before the reset (mark), and the shard counts
// as volatile unless INFO shows no key with an expiry. Frames that arrive
// meanwhile wait in the socket and are applied after it, in order.
func (ct *cacheTier) psubscribed(ctx context.Context, b *redisBackend, i int, m *markerState) {
	// Volatile until INFO says otherwise, and then only if nothing marked
	// the shard since, nor was on its way (expiryFlag).
	before, clearable := b.volatile[i].snapshot()
	cnt, _ := readCounts(ctx, b.shards[i]) // unknown (nil) on error: mark resets
	ct.reset(i)
	m.flushes.Store(cnt)
	n, err := keysWithExpiry(ctx, b.shards[i])
	if ct.expiriesRead != nil {
		ct.expiriesRead(i)
	}
	if err == nil && n == 0 && clearable {
		b.volatile[i].clearIf(before)
	}
	m.feedUp.Store(true)
}

// feedApplyBatch bounds the invalidations a feed hands the cache in one call.
const feedApplyBatch = 64

// notified reads message number seq of shard i's feed: for a keyspace
// notification it returns the invalidation to apply (ok), its key pointing
// into the reader's buffer, as channel and payload do (Apply keeps no event's
// key); anything else, a checkpoint on the marker channel included, returns
// !ok, and the caller hands it to checkpointed after the invalidations before
// it.
func (ct *cacheTier) notified(b *redisBackend, i int, marker string, seq uint64, channel, payload []byte) (cache.Event[string, cached], bool) {
	if string(channel) == marker {
		return cache.Event[string, cached]{}, false
	}
	key, ok := bytes.CutPrefix(channel, keyspacePrefix)
	if !ok || string(payload) == "keymiss" {
		// A key miss (flag m, which the shard keeps if an application set
		// it) is a read of an absent key, the tier's own fills included: no
		// change, and taken for one it dropped every absent key cached.
		return cache.Event[string, cached]{}, false
	}
	if givesExpiry[string(payload)] {
		b.volatile[i].set() // before the invalidation, so later fills fetch PTTL
	}
	return cache.Event[string, cached]{Kind: cache.Write, Key: argString(key), Version: seq}, true
}

// checkpointed applies message number seq of shard i's feed if it is a
// checkpoint (on the marker channel, with a cut), and ignores it otherwise.
// A message on the channel without a cut of this process's (markerCut) is
// another client's PUBLISH (PUBSUB CHANNELS names the channel to anyone): it
// proves only that the changes before it ran were delivered, not when, and
// taken as a checkpoint at its arrival it vouched for the changes that ran
// since on a feed that lags.
func (ct *cacheTier) checkpointed(i int, seq uint64, channel, payload []byte, marker string) {
	if string(channel) != marker {
		return
	}
	cut := markerCut(payload)
	if cut.IsZero() {
		return
	}
	ct.caches[i].Load().Apply(cache.Event[string, cached]{Kind: cache.Checkpoint, Version: seq, Cut: cut})
}

// keyspacePrefix starts the channel of a keyspace notification of database 0.
var keyspacePrefix = []byte("__keyspace@0__:")
