package cache

import "math/bits"

// sketch is a count-min sketch of 4-bit counters that estimates how often a key
// was accessed recently: the "TinyLFU" admission filter (Einziger, Friedman and
// Manes, "TinyLFU: A Highly Efficient Cache Admission Policy", 2017). Four
// counters of one key live in one 64-byte block so an increment touches one cache
// line (Caffeine's FrequencySketch layout). When the number of increments reaches
// sampleSize (10x the capacity the table was sized for, not 10x the table,
// which is that capacity rounded up to a power of two: ensureCapacity), every
// counter is halved: the aging step that lets the sketch forget old
// popularity.
//
// Not safe for concurrent use: the policy lock guards it.
type sketch struct {
	table      []uint64
	additions  int // increments since the last reset
	sampleSize int
	blockMask  uint64
	// epoch counts the table's resets and resizes, from 1 once sized: a
	// saturated counter stays saturated until the epoch changes (node.saturated).
	epoch uint32
}

const (
	resetMask = 0x7777777777777777
	oneMask   = 0x1111111111111111
)

// ensureCapacity sizes the table for n keys (n > 0) and the sample to 10n
// increments. Growing drops what was counted so far, as Caffeine does. Before
// the first call the sketch is not initialized: it counts nothing and estimates
// 0, which lets a cache that never fills skip the table.
func (s *sketch) ensureCapacity(n int) {
	if len(s.table) >= n {
		return
	}
	size := max(8, 1<<bits.Len(uint(n-1)))
	s.table = make([]uint64, size)
	s.sampleSize = 10 * n
	s.blockMask = uint64(size>>3) - 1
	s.additions = 0
	s.epoch++
}

// initialized reports whether ensureCapacity was called.
func (s *sketch) initialized() bool { return s.table != nil }

// rehash spreads h so the counter positions do not correlate with the block.
func rehash(h uint64) uint64 {
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// block returns the 8 words of the key with hash h: one bounds check, after
// which the compiler drops those of the word indexes (masked to 0..7).
func (s *sketch) block(h uint64) *[8]uint64 {
	i := (h & s.blockMask) << 3
	return (*[8]uint64)(s.table[i : i+8])
}

// slot returns the word (0..7) and the bit shift of the i-th counter of a key
// whose rehashed hash is ch: counter i lives in word 2i or 2i+1.
func slot(ch uint64, i uint) (word, shift uint64) {
	h := ch >> (i << 3)
	return (h&1 + uint64(i<<1)) & 7, ((h >> 1) & 0xf) << 2
}

// incrementAt adds one to the counter at word w, shift sh, unless it is
// saturated, and reports whether it did.
func incrementAt(b *[8]uint64, w, sh uint64) bool {
	v := b[w&7]
	if (v>>sh)&0xf == 0xf {
		return false
	}
	b[w&7] = v + 1<<sh
	return true
}

// increment counts one access of the key with hash h, and reports whether its
// four counters were all saturated, so that the increment changed nothing (and
// will change nothing until the epoch moves on). The four counters are
// unrolled: this runs for every access the policy replays.
func (s *sketch) increment(h uint64) (saturated bool) {
	if s.table == nil {
		return false
	}
	b, ch := s.block(h), rehash(h)
	w0, s0 := slot(ch, 0)
	w1, s1 := slot(ch, 1)
	w2, s2 := slot(ch, 2)
	w3, s3 := slot(ch, 3)
	added := incrementAt(b, w0, s0)
	added = incrementAt(b, w1, s1) || added
	added = incrementAt(b, w2, s2) || added
	added = incrementAt(b, w3, s3) || added
	if added {
		s.additions++
		if s.additions >= s.sampleSize {
			s.reset()
		}
	}
	return !added
}

// frequency returns the estimated access count of the key with hash h (0..15).
func (s *sketch) frequency(h uint64) int {
	if s.table == nil {
		return 0
	}
	b, ch := s.block(h), rehash(h)
	f := uint64(15)
	for i := range uint(4) {
		w, sh := slot(ch, i)
		f = min(f, (b[w&7]>>sh)&0xf)
	}
	return int(f)
}

// reset halves every counter (aging).
func (s *sketch) reset() {
	odd := 0
	for i, v := range s.table {
		odd += bits.OnesCount64(v & oneMask)
		s.table[i] = (v >> 1) & resetMask
	}
	s.additions = (s.additions - odd/4) / 2
	s.epoch++
}
