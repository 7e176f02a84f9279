package main

// noteOwnWrite marks, on Redis shards, a transaction whose connection has
// just written a watched key outside MULTI (reply r, the write's): EXEC then
// answers null, as Redis does after any write of a watched key since its
// WATCH, the connection's own included. The commit script checks states
// only: a write that left the key as it was at WATCH (SET of the same
// value, INCR then DECR, SET then DEL) committed. memkv sees each write as
// a version of the key (rebase). A key written before its WATCH is not
// watched then, and UNWATCH, DISCARD and EXEC drop the mark with the rest
// of the transaction (resetTx). As in Redis, a write that writes nothing
// marks nothing: an error (WRONGTYPE, INCR of no integer; a backend
// failure leaves it to the commit script, as another client's write), a
// SET NX or XX answered null, a DEL of a key then absent.
func (s *session) noteOwnWrite(spec *cmdSpec, args [][]byte, r any) {
	o, ok := s.txs.eng.(stateObserver)
	if !ok || s.txs.touched != nil || len(s.txs.watched) == 0 {
		return
	}
	switch r.(type) {
	case respErr, nullReply:
		return
	}
	keys := spec.keys(args)
	all := false // a DEL deleted every key it names
	if n, ok := r.(int64); ok && (spec.name == "DEL" || spec.name == "UNLINK") {
		if n == 0 {
			return
		}
		distinct := map[string]bool{}
		for _, k := range keys {
			distinct[k] = true
		}
		all = n == int64(len(distinct))
	}
	for _, k := range keys {
		if _, ok := s.txs.watched[k]; !ok {
			continue
		}
		if spec.name == "DEL" || spec.name == "UNLINK" {
			// Which keys it deleted the count does not say, unless it is
			// all of them. One present at WATCH was deleted by this DEL,
			// or by another client since, which aborts Redis's EXEC too;
			// one absent then and present now was written since, by the
			// connection (marked then) or by another client: what the
			// commit script cannot tell from an unchanged key (README).
			if !all && !o.presentAtWatch(k) {
				continue
			}
		}
		s.txs.touched = append([]byte{}, k...) // not nil when empty
		return
	}
}
