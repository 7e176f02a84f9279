package main

import (
	"context"
	"time"
)

// observeWatched notes, on Redis shards, the states of the keys a WATCH
// names, to compare at EXEC (a round trip per key not yet seen). It is
// admitted as a read of its keys (admitWatch).
func (s *session) observeWatched(ctx context.Context, keys []string) error {
	o, ok := s.txs.eng.(stateObserver)
	if !ok {
		return nil
	}
	return s.admitWatch(ctx, len(keys), len(keys), func() error { return o.observe(ctx, keys) })
}

// expireWatchedAdmitted is expireWatched for a WATCH that begins the
// transaction: on memkv it reads each of keys from the store (and deletes
// the expired ones), so it is admitted as a read of its keys and charged
// one backend call (admitWatch). Keys that span shards read nothing:
// bindShard refuses the WATCH next, with CROSSSLOT, as on Redis shards
// before anything is read or admitted.
func (s *session) expireWatchedAdmitted(ctx context.Context, keys []string) error {
	if _, ok := asMemkv(s.g.backend); !ok || len(keys) == 0 {
		return nil
	}
	sh := s.g.shard(keys[0])
	for _, k := range keys[1:] {
		if s.g.shard(k) != sh {
			return nil
		}
	}
	return s.admitWatch(ctx, len(keys), len(keys), func() error {
		s.expireWatched(ctx, keys)
		return nil
	})
}

// admitWatch runs read, a WATCH's reading of its keys' states (on Redis
// shards, observeWatched) or of the store (on memkv, the first WATCH's and
// a later one's of keys not yet watched: expireWatchedAdmitted, advance),
// admitted as a read of its keys, as callTx's reads are, at cost: checked by
// the quota alone, a loop of WATCHes of max_args keys got past load
// shedding (and on memkv, neither admitted nor charged, a throttled or shed
// tenant's WATCH answered OK and had the gateway read the store). It is
// charged the backend calls it makes (chargeTx: its round trips on Redis,
// one carrying reads ops on memkv, as a batch of GETs or an EXEC there). It
// counts as such a read does: in the tenant's requests and in
// gateway_requests_total and gateway_request_seconds (under WATCH), and
// refused or failed, in the errors and with outcome error (a refusal
// counted in shed or throttled alone); a panic (a bug: serveConn closes the
// connection) as failed, as call counts one. Refused, read does not run:
// the connection is left as it was.
func (s *session) admitWatch(ctx context.Context, cost, reads int, read func() error) error {
	s.tenant.requests.Add(1)
	now := time.Now()
	failed := true
	watch := commands["WATCH"]
	defer func() {
		if failed {
			s.g.n.errors.Add(1)
		}
		s.g.metrics.observe(s.tenant, watch, !failed, time.Since(now))
	}()
	done, release, err := s.g.admitAt(ctx, s.tenant, watch, int64(cost), now)
	if err != nil {
		return err
	}
	from := s.txMark()
	err = func() (err error) {
		defer func() { done(err == nil); release() }() // a panic's too
		return read()
	}()
	s.chargeTx(now, from, reads)
	failed = err != nil
	return err
}
