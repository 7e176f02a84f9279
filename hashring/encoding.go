package hashring

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

// ErrCorrupt is returned by [Unmarshal] for data that [Ring.MarshalBinary] did not
// produce (or that was damaged in transit). The caller should fetch the ring again.
var ErrCorrupt = errors.New("hashring: corrupt ring encoding")

// encMagic starts every encoding; the digit is the format version.
const encMagic = "hring1"

// MarshalBinary encodes the ring (Config, members and slot table) so that another
// process can route exactly as this one does: placement depends on the history of
// memberships, so a client that joins late loads the published ring with
// [Unmarshal] instead of rebuilding it. The encoding is 2 bytes per slot plus the
// members, and ends with an xxhash64 checksum.
func (r *Ring) MarshalBinary() ([]byte, error) {
	m := r.cfg.slots()
	buf := make([]byte, 0, len(encMagic)+16+len(r.nodes)*24+2*len(r.slots)+8)
	buf = append(buf, encMagic...)
	buf = append(buf, byte(bits.TrailingZeros(uint(m))))
	buf = binary.AppendUvarint(buf, uint64(len(r.nodes)))
	for _, n := range r.nodes {
		buf = binary.AppendUvarint(buf, uint64(len(n.ID)))
		buf = append(buf, n.ID...)
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(n.Weight))
	}
	for _, o := range r.slots {
		buf = binary.LittleEndian.AppendUint16(buf, o)
	}
	return binary.LittleEndian.AppendUint64(buf, xxhash.Sum64(buf)), nil
}

// Unmarshal decodes a ring encoded by [Ring.MarshalBinary]. It checks the checksum
// and every invariant (sorted unique members, valid weights, each node within one
// slot of its quota) and returns [ErrCorrupt], or a *[NodeError], otherwise. The
// result routes every key as the encoded ring did; its Stats report no movement.
// The encoding is canonical: Unmarshal accepts only the exact bytes MarshalBinary
// writes (no padded varints), so a decoded ring re-encodes to its input and two
// encodings of one ring are equal byte for byte.
func Unmarshal(data []byte) (*Ring, error) {
	if len(data) < len(encMagic)+1+8 || string(data[:len(encMagic)]) != encMagic {
		return nil, fmt.Errorf("%w: bad header", ErrCorrupt)
	}
	body, sum := data[:len(data)-8], binary.LittleEndian.Uint64(data[len(data)-8:])
	if xxhash.Sum64(body) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	p := body[len(encMagic):]
	cfg := Config{Slots: 1 << min(p[0], 63)}
	if p[0] > 24 || cfg.validate() != nil {
		return nil, fmt.Errorf("%w: slot count 2^%d", ErrCorrupt, p[0])
	}
	p = p[1:]
	count, k := binary.Uvarint(p)
	if !canonical(count, k) || count > MaxNodes {
		return nil, fmt.Errorf("%w: node count", ErrCorrupt)
	}
	p = p[k:]
	// A member takes at least 9 bytes (length and weight): a short input cannot
	// make us allocate for MaxNodes of them.
	nodes := make([]Node, 0, min(count, uint64(len(p)/9)))
	for range count {
		l, k := binary.Uvarint(p)
		if !canonical(l, k) || l > uint64(len(p)-k) || uint64(len(p)-k)-l < 8 {
			return nil, fmt.Errorf("%w: truncated node", ErrCorrupt)
		}
		id := string(p[k : k+int(l)])
		w := math.Float64frombits(binary.LittleEndian.Uint64(p[k+int(l):]))
		nodes = append(nodes, Node{ID: id, Weight: w})
		p = p[k+int(l)+8:]
	}
	for i := 1; i < len(nodes); i++ {
		if nodes[i-1].ID > nodes[i].ID {
			return nil, fmt.Errorf("%w: members out of order", ErrCorrupt)
		}
	}
	if err := checkNodes("unmarshal", nodes); err != nil {
		return nil, err
	}
	r := &Ring{cfg: cfg, nodes: nodes}
	if len(nodes) == 0 {
		if len(p) != 0 {
			return nil, fmt.Errorf("%w: table without members", ErrCorrupt)
		}
		return r, nil
	}
	m := cfg.slots()
	if len(p) != 2*m {
		return nil, fmt.Errorf("%w: table size", ErrCorrupt)
	}
	r.shift = shiftFor(m)
	r.slots = make([]uint16, m)
	r.counts = make([]int32, len(nodes))
	for s := range r.slots {
		o := binary.LittleEndian.Uint16(p[2*s:])
		if int(o) >= len(nodes) {
			return nil, fmt.Errorf("%w: slot owner out of range", ErrCorrupt)
		}
		r.slots[s] = o
		r.counts[o]++
	}
	for _, n := range nodes {
		r.total += n.Weight
	}
	for i, n := range nodes {
		q := float64(m) * (n.Weight / r.total)
		if c := float64(r.counts[i]); c < math.Floor(q) || c > math.Ceil(q) {
			return nil, fmt.Errorf("%w: node %q owns %v slots, quota %.2f", ErrCorrupt, n.ID, c, q)
		}
		r.owners += btoi(r.counts[i] > 0)
	}
	return r, nil
}

// canonical reports whether binary.Uvarint read v in k bytes with no padding:
// 0x81 0x00 also decodes as 1, and accepting it would give one ring two
// encodings (and two checksums), so a cache keyed by the bytes would miss.
func canonical(v uint64, k int) bool {
	return k > 0 && k == (bits.Len64(v|1)+6)/7
}
