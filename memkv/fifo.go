package memkv

// fifo is a log appended at the back and trimmed from the front (the range
// writes, idempotency keys and history bytes of the commits in the window).
// Its entries are buf[off:]: dropping reslices nothing, so the array's
// front stays reachable and push reuses it, moving the entries left back to
// its start once they are at most as many as the ones dropped before them.
// With the window full, a commit appends one entry and drops about one, and
// the array is then reused for good: appending to a slice trimmed by
// reslicing reached the end of its array every few thousand commits and
// allocated a larger one, about 80 bytes a commit for the 16 bytes of a
// history-byte entry (BenchmarkPutHot, bench/memkv/histlog_abba.txt).
//
// Each entry is copied at most once per entry dropped (in place or to a new
// array), so push and dropFront take amortized constant time per entry.
// The zero value is an empty log.
type fifo[T any] struct {
	buf []T // buf[:off] is dropped and cleared
	off int
}

// minFifoShrink is the largest array dropFront keeps however few entries it
// holds: moving to a smaller one would save little and allocate on every
// commit that empties the log (a commit with a clear every few thousand).
const minFifoShrink = 8

// items returns the entries, oldest first. The slice is valid until the
// next push or dropFront.
func (q *fifo[T]) items() []T { return q.buf[q.off:] }

// len returns the number of entries.
func (q *fifo[T]) len() int { return len(q.buf) - q.off }

// push appends e. When the array is full, the entries move back to its
// start if they are no more than the dropped slots before them (each moved
// entry paid for by one dropped), or else to a new array of twice their
// number, which leaves room for the steady state (one appended, one
// dropped) to compact in place from then on.
func (q *fifo[T]) push(e T) {
	if len(q.buf) == cap(q.buf) {
		n := q.len()
		if q.off > 0 && q.off >= n {
			copy(q.buf, q.buf[q.off:])
			clear(q.buf[n:])
			q.buf = q.buf[:n]
		} else {
			q.buf = append(make([]T, 0, 2*n+1), q.buf[q.off:]...)
		}
		q.off = 0
	}
	q.buf = append(q.buf, e)
}

// dropFront drops the n oldest entries, clearing them so their memory can
// go. Once the entries left are at most a quarter of the array, they move
// to a new array of twice their number: when the window shrinks (SetConfig)
// the few entries left must not keep the whole array alive. Such a move
// copies a quarter of the array at most, after about as many entries were
// dropped since the array was made (about half full). Copying the rest on every drop made each commit cost the
// window's length once the window was full: 89 and 192 µs per commit with a
// window of 2^16 (bench/memkv/droplog_abba.txt, medians of 6 runs).
func (q *fifo[T]) dropFront(n int) {
	if n == 0 {
		return
	}
	clear(q.buf[q.off : q.off+n])
	q.off += n
	if left := q.len(); 4*left <= cap(q.buf) && cap(q.buf) > minFifoShrink {
		if left == 0 {
			q.buf = nil
		} else {
			q.buf = append(make([]T, 0, 2*left+1), q.items()...)
		}
		q.off = 0
	}
}
