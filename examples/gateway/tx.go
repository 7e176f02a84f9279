package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/tidwall/redcon"

	"github.com/tierkit/tierkit/txn"
)

// txState is a connection's WATCH/MULTI state. Transactions run through package
// txn on one shard: the gateway keeps the bookkeeping (read set, buffered
// writes, read-your-writes) and sends one commit that the shard validates
// optimistically (memkv by versions, Redis by key states: redisTxEngine). All
// keys of a transaction must map to one shard (use a hash tag: {user1}:a and
// {user1}:b share a shard), as in Redis Cluster.
type txState struct {
	tx      *txn.Tx
	eng     txn.Engine
	shard   int
	multi   bool
	queued  []redcon.Command
	data    int  // the data commands among queued (the others: UNWATCH)
	cost    int  // their admission cost: their keys, at least 1 each, as outside MULTI
	prio    int  // the highest shed priority among them (admitExec)
	aborted bool // a command failed to queue: EXEC answers EXECABORT
	// wrote: the connection wrote outside MULTI since WATCH; its reads no
	// longer come from the transaction's snapshot, which would hide its
	// own write, and on memkv EXEC runs at the current version (rebase).
	wrote bool
	// touched: on Redis shards, a watched key the connection wrote outside
	// MULTI since its WATCH (noteOwnWrite), nil if none: EXEC answers null.
	touched []byte
	// watched: the keys WATCH named, each with the version of the WATCH
	// that named it first, from which EXEC checks it once the transaction
	// is rebased. At most max_args of them (cmdWatch).
	watched map[string]uint64
	// reads: the keys read through the transaction after WATCH (callTx),
	// each held until EXEC; at most max_args of them.
	reads int
	// readExpired: the keys read through the transaction after WATCH
	// (callTx), each true if its first read found a value whose TTL had
	// run out (answered as absent), for a later WATCH of it (expireReads).
	readExpired map[string]bool
	// checks: after a rebase, the checks that the watched keys did not
	// change from their WATCH on, one per version; before one, the
	// transactions a later WATCH moved on from (advance). EXEC commits them
	// before the transaction.
	checks []*txn.Tx
	// carried, carriedRanges: how many of tx's point reads and of its
	// range reads' bounds came first from the transaction before it
	// (moveOn), which the checks validate from their snapshots: the check
	// tx becomes at the next moveOn validates only the reads after them.
	carried, carriedRanges int
	// readErr: a read of EXEC's commands failed on its way (the shard, the
	// snapshot too old; not WRONGTYPE, a reply of its command): EXEC then
	// commits nothing and answers it (runQueued).
	readErr error
	// ran: while EXEC runs the queued commands, how many of them it ran
	// before the one running (INFO's total_commands_processed).
	ran int
}

// txOptions are the options of the gateway's transactions: no memory
// budget. What one buffers is bounded by what MULTI queued (max_tx_commands
// commands of max_request_bytes at most), which the gateway holds anyway,
// and its reads by max_args keys. txn's default budget (16 MiB) refused a
// write inside EXEC, in EXEC's reply, while the shard applied the others,
// where Redis runs the whole transaction (TestTxLargerThanStoreBounds).
var txOptions = txn.Options{MemoryBudget: -1}

var (
	errCrossShard = errors.New("CROSSSLOT keys of one transaction must map to one shard (use a {hash tag})")
	errTxBackend  = errors.New("ERR WATCH/MULTI/EXEC are not available on this backend")
)

// txEngine returns a txn engine for one transaction on shard, or nil for a
// backend without one. On Redis it is new for each transaction: it holds the
// states the transaction read.
func (g *Gateway) txEngine(shard int) txn.Engine {
	if b, ok := asMemkv(g.backend); ok {
		return b.stores[shard]
	}
	if b, ok := asRedis(g.backend); ok {
		e := newRedisTxEngine(b.shards[shard], g.expiryNow)
		e.volatile = &b.volatile[shard]
		return e
	}
	return nil
}

// bindShard starts the transaction on the shard of keys, or checks that keys
// belong to the shard it already uses.
func (s *session) bindShard(keys []string) error {
	for _, k := range keys {
		sh := s.g.shard(k)
		if s.txs.tx == nil {
			eng := s.g.txEngine(sh)
			if eng == nil {
				return errTxBackend
			}
			tx, err := txn.Begin(eng, txOptions)
			if err != nil {
				return err
			}
			s.txs.tx, s.txs.eng, s.txs.shard = tx, eng, sh
		} else if sh != s.txs.shard {
			return errCrossShard
		}
	}
	return nil
}

// onTxShard reports whether every key maps to the transaction's shard.
func (s *session) onTxShard(keys []string) bool {
	for _, k := range keys {
		if s.g.shard(k) != s.txs.shard {
			return false
		}
	}
	return true
}

func (s *session) resetTx() {
	if s.txs.tx != nil {
		s.txs.tx.Rollback()
	}
	for _, c := range s.txs.checks {
		c.Rollback()
	}
	s.txs = txState{}
}

func cmdUnwatch(_ context.Context, s *session, _ [][]byte) any {
	if !s.txs.multi {
		s.resetTx()
	}
	return simple("OK")
}

func cmdMulti(_ context.Context, s *session, _ [][]byte) any {
	if s.txs.multi {
		return respErr("ERR MULTI calls can not be nested")
	}
	s.txs.multi = true
	return simple("OK")
}

func cmdDiscard(_ context.Context, s *session, _ [][]byte) any {
	if !s.txs.multi {
		return respErr("ERR DISCARD without MULTI")
	}
	s.resetTx()
	return simple("OK")
}

// queue answers a command sent between MULTI and EXEC.
func (s *session) queue(cmd redcon.Command, spec *cmdSpec, bad any) any {
	if bad != nil {
		s.txs.aborted = true
		return bad
	}
	// Redis queues UNWATCH. A range read cannot run in a transaction
	// (txCommand): refused now, it fails the transaction, rather than
	// failing alone at EXEC while the others are applied.
	if spec.kind == kindConn && spec.name != "UNWATCH" || spec.name == "KVSCAN" {
		s.txs.aborted = true
		return respErr("ERR command not allowed inside a transaction")
	}
	if s.txs.aborted {
		// EXEC will answer EXECABORT: as Redis, answer QUEUED and keep
		// nothing (an aborted transaction holds no memory, and never meets
		// the limit below where Redis would answer QUEUED).
		return simple("QUEUED")
	}
	if limit := s.g.cfg.Limits.MaxTxCommands; len(s.txs.queued) >= limit {
		// A bound on what one connection can make the gateway hold.
		s.txs.aborted = true
		return respErr(fmt.Sprintf("ERR transaction too long (limit %d queued commands)", limit))
	}
	s.txs.queued = append(s.txs.queued, redcon.Command{Args: cloneArgs(cmd.Args)})
	if spec.kind == kindRead || spec.kind == kindWrite {
		s.txs.data++
		s.txs.cost += max(spec.nkeys(len(cmd.Args)), 1)
		s.txs.prio = max(s.txs.prio, int(s.tenant.prio[spec.idx]))
	}
	return simple("QUEUED")
}

func cloneArgs(args [][]byte) [][]byte {
	out := make([][]byte, len(args))
	for i, a := range args {
		out[i] = append([]byte{}, a...) // not nil when empty: a nil []byte reply is null
	}
	return out
}
