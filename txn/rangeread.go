package txn

import (
	"bytes"
	"context"
)

// GetRange returns the keys in [begin, end) (nil end: no upper bound) with
// their values, ascending (or descending if reverse), at most limit of them
// (limit <= 0: all), merging the engine's snapshot with the transaction's
// own writes and clears. Under Serializable it records, for validation, the
// part of the range the result depends on: all of it, or, when the limit cut
// the result short, up to and including the last key returned. Empty results
// record the whole range, so phantoms are caught. Parts of the range that the
// transaction's own writes and range deletes decide are recorded too (a safe
// superset: a write there by another transaction is a false conflict, which
// FoundationDB avoids by leaving such parts out).
func (tx *Tx) GetRange(ctx context.Context, begin, end []byte, limit int, reverse bool) ([]KV, error) {
	return tx.getRange(ctx, begin, end, limit, reverse, tx.opt.Isolation == Serializable)
}

func (tx *Tx) getRange(ctx context.Context, begin, end []byte, limit int, reverse, record bool) ([]KV, error) {
	if err := tx.check(ctx); err != nil {
		return nil, err
	}
	if begin == nil {
		begin = []byte{}
	}
	if end != nil && bytes.Compare(begin, end) >= 0 {
		return nil, nil
	}
	var out []KV
	for try := 0; ; try++ {
		var err error
		if out, err = tx.merge(ctx, tx.readVersion(), begin, end, limit, reverse); err == nil {
			break
		}
		if err = classify(err); !tx.retryRead(err, try) {
			return nil, tx.fail(err)
		}
	}
	if record {
		lo, hi := begin, end
		if limit > 0 && len(out) == limit {
			if reverse {
				lo = out[len(out)-1].Key
			} else {
				hi = keyAfter(out[len(out)-1].Key)
			}
		}
		if err := tx.recordRange(lo, hi); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// merge merges engine chunks with the buffered writes, in ascending key order or,
// when reverse is set, descending. Each chunk asks the engine for as many pairs as
// are still missing; hidden pairs (overwritten or cleared by the transaction) make
// it fetch again past the chunk's last key.
func (tx *Tx) merge(ctx context.Context, rv uint64, begin, end []byte, limit int, reverse bool) ([]KV, error) {
	var out []KV
	local := tx.c.wb.inRange(begin, end)
	dir, cur := 1, begin // dir orients comparisons: 1 ascending, -1 descending
	if reverse {
		dir, cur = -1, end
	}
	// head is the next buffered write in scan order; pop consumes it.
	head := func() int32 {
		if reverse {
			return local[len(local)-1]
		}
		return local[0]
	}
	pop := func() {
		if reverse {
			local = local[:len(local)-1]
		} else {
			local = local[1:]
		}
	}
	for {
		need := 0
		if limit > 0 {
			need = limit - len(out)
		}
		lo, hi := cur, end
		if reverse {
			lo, hi = begin, cur
		}
		chunk, err := tx.eng.Scan(ctx, rv, lo, hi, need, reverse, tx.c.scratch[:0])
		tx.c.scratch = chunk[:0]
		if err != nil {
			return nil, err
		}
		full := need > 0 && len(chunk)/2 == need
		var last []byte // the engine's coverage ends at last (inclusive) when full
		if full {
			last = chunk[len(chunk)-2]
		}
		i := 0
		for (i < len(chunk) || len(local) > 0) && (limit <= 0 || len(out) < limit) {
			useLocal := len(local) > 0 && (i >= len(chunk) || dir*bytes.Compare(tx.c.wb.keyOf(head()), chunk[i]) <= 0)
			if useLocal && full && dir*bytes.Compare(tx.c.wb.keyOf(head()), last) > 0 {
				if i >= len(chunk) {
					break // beyond what the engine covered: fetch more first
				}
				useLocal = false
			}
			if useLocal {
				k := tx.c.wb.keyOf(head())
				if i < len(chunk) && bytes.Equal(k, chunk[i]) {
					i += 2 // the transaction's write hides the engine's
				}
				if e := &tx.c.wb.ents[head()]; !e.del {
					out = append(out, KV{k, tx.c.wb.val(e)})
					tx.c.wb.handed = true
				}
				pop()
				continue
			}
			if !tx.c.wb.cleared(chunk[i]) {
				out = append(out, KV{chunk[i], chunk[i+1]})
			}
			i += 2
		}
		if !full || (limit > 0 && len(out) >= limit) {
			return out, nil
		}
		cur = last
		if !reverse {
			cur = keyAfter(last)
		}
	}
}
