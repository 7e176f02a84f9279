package txn

import (
	"bytes"
	"slices"
	"sync/atomic"
)

// account is a memory budget shared by many transactions (the manager's
// gateway-wide budget).
type account struct {
	used  atomic.Int64
	limit atomic.Int64 // <= 0: none
}

func (a *account) add(n int) { a.used.Add(int64(n)) }

// tryAdd adds n if the account stays within its limit, and reports whether
// it did. A charge that does not fit never shows in used: added and taken
// back, it made the account look full to every other transaction meanwhile,
// refusing their operations and Begins and merging their read sets.
func (a *account) tryAdd(n int) bool {
	for {
		u, l := a.used.Load(), a.limit.Load()
		if l > 0 && int64(n) > l-u { // what is left: u+n could wrap past MaxInt64
			return false
		}
		if a.used.CompareAndSwap(u, u+int64(n)) {
			return true
		}
	}
}

func (a *account) over() bool {
	l := a.limit.Load()
	return l > 0 && a.used.Load() > l
}

// charge accounts n more bytes. Over a budget, it first merges the read set
// into fewer ranges; if still over, it returns ErrTooLarge and accounts
// nothing (the operation is refused, the transaction stays usable).
func (tx *Tx) charge(n int) error {
	if tx.acct == nil && n <= tx.limit-tx.mem { // what is left: a sum could wrap past MaxInt
		tx.mem += n // fast path, inlined
		return nil
	}
	return tx.chargeSlow(n)
}

func (tx *Tx) chargeSlow(n int) error {
	if tx.reserve(n) {
		return nil
	}
	tx.mergeReads()
	if tx.reserve(n) {
		return nil
	}
	return ErrTooLarge
}

// reserve accounts n bytes if they fit in the transaction's budget and the
// shared one, and reports whether they did.
func (tx *Tx) reserve(n int) bool {
	if n > tx.limit-tx.mem || (tx.acct != nil && !tx.acct.tryAdd(n)) {
		return false
	}
	tx.mem += n
	return true
}

// refund gives back n bytes charged before.
func (tx *Tx) refund(n int) {
	tx.mem -= n
	if tx.acct != nil {
		tx.acct.add(-n)
	}
}

// recordKey adds a point read to the read set.
func (tx *Tx) recordKey(key []byte) error {
	if err := tx.charge(len(key) + entryOverhead); err != nil {
		return err
	}
	c := tx.c
	c.rbuf = append(c.rbuf, key...)
	c.rends = append(c.rends, len(c.rbuf))
	return nil
}

// recordRange adds a range read [begin, end) to the read set.
func (tx *Tx) recordRange(begin, end []byte) error {
	if emptyRange(begin, end) {
		return nil // nothing to validate
	}
	if err := tx.charge(len(begin) + len(end) + entryOverhead); err != nil {
		return err
	}
	tx.c.rranges = append(tx.c.rranges, bytes.Clone(begin), bytes.Clone(end))
	return nil
}

// readMem is the bytes accounted to the read set.
func (tx *Tx) readMem() int {
	n := len(tx.c.rbuf) + len(tx.c.rends)*entryOverhead
	for i := 0; i+1 < len(tx.c.rranges); i += 2 {
		n += len(tx.c.rranges[i]) + len(tx.c.rranges[i+1]) + entryOverhead
	}
	return n
}

// mergeReads replaces the read keys and ranges by fewer ranges covering all
// of them (a superset: it can add false conflicts, never lose one). It
// merges overlapping ranges, then neighbours pairwise, until the read set
// takes at most a quarter of what it took, or is one range. A merge that
// would not make the read set smaller (a single point read, whose range
// takes about twice its bytes) is not made.
func (tx *Tx) mergeReads() {
	before := tx.readMem()
	if before == 0 {
		return
	}
	type iv struct{ b, e []byte }
	ivs := make([]iv, 0, len(tx.c.rends)+len(tx.c.rranges)/2)
	for i := range tx.c.rends {
		k := bytes.Clone(tx.c.readKey(i)) // rbuf is reused below
		ivs = append(ivs, iv{k, keyAfter(k)})
	}
	for i := 0; i+1 < len(tx.c.rranges); i += 2 {
		ivs = append(ivs, iv{tx.c.rranges[i], tx.c.rranges[i+1]})
	}
	slices.SortFunc(ivs, func(a, b iv) int { return bytes.Compare(a.b, b.b) })
	endMax := func(a, b []byte) []byte {
		if a == nil || b == nil {
			return nil
		}
		if bytes.Compare(a, b) >= 0 {
			return a
		}
		return b
	}
	merged := ivs[:1]
	for _, x := range ivs[1:] {
		last := &merged[len(merged)-1]
		if last.e == nil || bytes.Compare(x.b, last.e) <= 0 {
			last.e = endMax(last.e, x.e)
		} else {
			merged = append(merged, x)
		}
	}
	size := func(v []iv) int {
		n := 0
		for _, x := range v {
			n += len(x.b) + len(x.e) + entryOverhead
		}
		return n
	}
	for len(merged) > 1 && size(merged) > before/4 {
		out := merged[:0]
		for i := 0; i < len(merged); i += 2 {
			if i+1 < len(merged) {
				out = append(out, iv{merged[i].b, endMax(merged[i].e, merged[i+1].e)})
			} else {
				out = append(out, merged[i])
			}
		}
		merged = out
	}
	after := size(merged)
	if after >= before {
		// Nothing saved (one point read becomes a range of about twice
		// its bytes): keep the read set as it is.
		return
	}
	tx.c.rbuf, tx.c.rends = tx.c.rbuf[:0], tx.c.rends[:0]
	tx.c.rranges = tx.c.rranges[:0]
	for _, x := range merged {
		tx.c.rranges = append(tx.c.rranges, x.b, x.e)
	}
	tx.mem += after - before
	if tx.acct != nil {
		tx.acct.add(after - before)
	}
	tx.merges++
}

// readKey returns the i-th recorded point read (a view of rbuf).
func (c *core) readKey(i int) []byte {
	start := 0
	if i > 0 {
		start = c.rends[i-1]
	}
	return c.rbuf[start:c.rends[i]:c.rends[i]]
}
