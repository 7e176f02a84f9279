package hashring

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/tierkit/tierkit/internal/mix"
)

// Node is a member of a ring.
type Node struct {
	// ID names the node (a host:port, a shard name). It must be unique and non-empty.
	ID string
	// Weight is the node's relative capacity: any finite number > 0. A node receives
	// Weight / (sum of weights) of the keys.
	Weight float64
}

// Ring maps keys to weighted nodes through a table of slots. A Ring is immutable:
// [Ring.Add], [Ring.Remove], [Ring.Reweight] and [Ring.Update] return a new Ring and
// leave the receiver untouched, so any number of goroutines may look keys up while
// another derives the next ring. Publish rings with an atomic.Pointer[Ring]; readers
// Load it per request and never lock.
//
// The zero value is an empty ring with the default [Config]; lookups on it return
// [ErrEmpty] until nodes are added. A nil *Ring (an atomic.Pointer[Ring] read
// before its first Store) answers lookups and queries (Len, Nodes, Contains,
// Share, Config, Stats) as the zero value does; Add, Remove, Reweight, Update
// and MarshalBinary need a Ring.
type Ring struct {
	cfg    Config
	nodes  []Node   // sorted by ID
	counts []int32  // slots owned, per node
	slots  []uint16 // slot -> index in nodes; len is cfg.slots() unless empty
	shift  uint     // 64 - log2(len(slots))
	total  float64  // sum of weights
	owners int      // nodes owning at least one slot

	moved   int     // slots whose owner changed from the parent ring
	optimal float64 // least share that had to move from the parent ring
	derived bool    // whether the ring was derived from another ring
}

// New builds a ring of nodes. The order of nodes does not matter: the placement
// depends only on cfg and the set of (ID, Weight) pairs. An empty nodes slice gives an
// empty ring. New returns an error wrapping [ErrInvalidConfig] for a cfg out of
// range, and a *[NodeError] for a bad, empty or duplicate node.
func New(cfg Config, nodes []Node) (*Ring, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	next := slices.Clone(nodes)
	slices.SortFunc(next, compareID)
	if err := checkNodes("new", next); err != nil {
		return nil, err
	}
	from := make([]int, len(next))
	for i := range from {
		from[i] = -1 // every node is new
	}
	return (&Ring{cfg: cfg}).derive(next, from)
}

// Lookup returns the ID of the node that owns key (hashed with xxhash64), or
// [ErrEmpty]. It does not allocate.
func (r *Ring) Lookup(key string) (string, error) {
	return r.LookupHash(xxhash.Sum64String(key))
}

// LookupHash is Lookup for a key already hashed to 64 uniformly distributed bits
// (the top bits choose the slot). Use it to hash once and route many times.
func (r *Ring) LookupHash(h uint64) (string, error) {
	if r == nil || len(r.nodes) == 0 {
		return "", ErrEmpty
	}
	return r.nodes[r.slots[h>>r.shift]].ID, nil
}

// LookupN returns up to n distinct nodes for key, the owner first: replicas drawn in
// proportion to weight without repetition. Fewer than n come back when fewer nodes own
// slots. When a node leaves, only the replica sets that contained it change,
// except where keeping every node within one slot of its share moves a slot
// between two others: seen only with nodes lighter than a slot (63 of 3,000
// random histories with such weights; none with weights of 26 to 126 or of
// 0.5 to 1.5, 10 to 1,000 nodes). The first k of LookupN(key, n) are not always LookupN(key, k): the
// draws depend on n where weights are very uneven.
func (r *Ring) LookupN(key string, n int) ([]string, error) {
	if n < 1 {
		return nil, ErrBadCount
	}
	if r == nil || len(r.nodes) == 0 {
		return nil, ErrEmpty
	}
	return r.AppendLookupNHash(make([]string, 0, min(n, r.owners)), xxhash.Sum64String(key), n), nil
}

// AppendLookupNHash appends to dst the replicas of LookupN for a precomputed hash and
// returns the extended slice. It does not allocate when dst has room, except for a
// draw of more than 16 replicas that the probes leave more than one short; it
// appends nothing for an empty ring or n < 1. It takes at most 32 probes per
// replica; the replicas the probes miss (nodes lighter than a slot) take a scan of
// the members each, or for more than 16 replicas one scan and a sort in all.
func (r *Ring) AppendLookupNHash(dst []string, h uint64, n int) []string {
	if r == nil || len(r.nodes) == 0 || n < 1 {
		return dst
	}
	start := len(dst)
	want := min(n, r.owners)
	if want > wideReplicas {
		return r.appendWide(dst, h, want)
	}
	for k := uint64(0); k < uint64(32*want) && len(dst)-start < want; k++ {
		id := r.nodes[r.slots[probe(h, k)>>r.shift]].ID
		if !slices.Contains(dst[start:], id) {
			dst = append(dst, id)
		}
	}
	// Unlucky probes (a tiny node among giants): take the rest in a rendezvous order of
	// (h, ID), which does not depend on the other members.
	for len(dst)-start < want {
		best, bestScore := -1, uint64(0)
		for j, n := range r.nodes {
			if r.counts[j] == 0 || slices.Contains(dst[start:], n.ID) {
				continue
			}
			if sc := probe(h^xxhash.Sum64String(n.ID), 1); best < 0 || sc > bestScore {
				best, bestScore = j, sc
			}
		}
		dst = append(dst, r.nodes[best].ID)
	}
	return dst
}

// wideReplicas is the replica count above which AppendLookupNHash marks the nodes
// drawn in a bitset instead of searching dst for each probe: the search made a draw
// of n replicas cost O(n²) string comparisons (a second for all of 5,000 nodes).
const wideReplicas = 16

// appendWide is AppendLookupNHash for more than wideReplicas replicas: the same
// draws in the same order, with the nodes drawn marked in a bitset on the stack.
func (r *Ring) appendWide(dst []string, h uint64, want int) []string {
	var seen [MaxNodes/64 + 1]uint64
	got := 0
	for k := uint64(0); k < uint64(32*want) && got < want; k++ {
		i := r.slots[probe(h, k)>>r.shift]
		if seen[i/64]&(1<<(i%64)) == 0 {
			seen[i/64] |= 1 << (i % 64)
			dst = append(dst, r.nodes[i].ID)
			got++
		}
	}
	if want-got > 1 {
		return r.appendByScore(dst, h, &seen, want-got)
	}
	for ; got < want; got++ {
		best, bestScore := -1, uint64(0)
		for j, n := range r.nodes {
			if r.counts[j] == 0 || seen[j/64]&(1<<(j%64)) != 0 {
				continue
			}
			if sc := probe(h^xxhash.Sum64String(n.ID), 1); best < 0 || sc > bestScore {
				best, bestScore = j, sc
			}
		}
		seen[best/64] |= 1 << (best % 64)
		dst = append(dst, r.nodes[best].ID)
	}
	return dst
}

// appendByScore appends the k slot owners not marked in seen that the fallback of
// appendWide would take one scan at a time: the highest rendezvous score of (h, ID)
// first, the lower index among equal scores. It scores the members once: a scan
// per replica made a draw that the probes leave thousands short O(n²), seconds
// for a full preference list of MaxNodes.
func (r *Ring) appendByScore(dst []string, h uint64, seen *[MaxNodes/64 + 1]uint64, k int) []string {
	type cand struct {
		score uint64
		j     int
	}
	cands := make([]cand, 0, len(r.nodes))
	for j, n := range r.nodes {
		if r.counts[j] > 0 && seen[j/64]&(1<<(j%64)) == 0 {
			cands = append(cands, cand{probe(h^xxhash.Sum64String(n.ID), 1), j})
		}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return a.j - b.j
	})
	for _, c := range cands[:k] {
		dst = append(dst, r.nodes[c.j].ID)
	}
	return dst
}

// probe returns the k-th hash of the probe sequence of h: h itself, then mixes.
func probe(h, k uint64) uint64 {
	if k == 0 {
		return h
	}
	// splitmix64 finalizer over h + k*golden ratio.
	return mix.Mix64(h + k*0x9e3779b97f4a7c15)
}

// Len returns the number of nodes.
func (r *Ring) Len() int { return len(r.orEmpty().nodes) }

// Nodes returns a copy of the members, sorted by ID.
func (r *Ring) Nodes() []Node { return slices.Clone(r.orEmpty().nodes) }

// Config returns the ring's configuration with defaults applied.
func (r *Ring) Config() Config { return Config{Slots: r.orEmpty().cfg.slots()} }

// emptyRing is what a nil *Ring reads as.
var emptyRing Ring

// orEmpty returns r, or the zero Ring for a nil r.
func (r *Ring) orEmpty() *Ring {
	if r == nil {
		return &emptyRing
	}
	return r
}

// Contains reports whether id is a member.
func (r *Ring) Contains(id string) bool { return r.index(id) >= 0 }

// Share returns the fraction of the hash space that id owns (its slot count divided
// by the slot count) and whether id is a member. Shares of all members sum to 1.
func (r *Ring) Share(id string) (float64, bool) {
	r = r.orEmpty()
	i := r.index(id)
	if i < 0 {
		return 0, false
	}
	return float64(r.counts[i]) / float64(len(r.slots)), true
}

// index returns the position of id in r.nodes, or -1.
func (r *Ring) index(id string) int {
	r = r.orEmpty()
	i, ok := slices.BinarySearchFunc(r.nodes, id, func(n Node, id string) int { return strings.Compare(n.ID, id) })
	if !ok {
		return -1
	}
	return i
}

// Stats describes a ring: its size, its balance and, for a ring derived from another
// one, how much of the key space moved compared with the least that had to move.
type Stats struct {
	Nodes       int     // members
	Slots       int     // table size
	TotalWeight float64 // sum of weights
	// MaxShareRatio is the largest share / expected share over the members, where the
	// expected share is Weight / TotalWeight. 1 is perfect balance. It stays
	// finite: a ratio that overflows (a node reweighted to a vanishing weight
	// keeps a slot) counts as math.MaxFloat64.
	MaxShareRatio float64
	// PeakToMean is the largest share divided by the mean share 1/Nodes (with equal
	// weights it equals MaxShareRatio).
	PeakToMean float64
	// MovedShare is the fraction of the key space whose owner differs from the ring
	// this one was derived from (0 for a ring built by New).
	MovedShare float64
	// OptimalMovedShare is the least fraction that any placement had to move: the sum
	// of the positive changes of expected shares between the two rings.
	OptimalMovedShare float64
}

// Stats returns a snapshot of the ring's structure.
func (r *Ring) Stats() Stats {
	r = r.orEmpty()
	s := Stats{Nodes: len(r.nodes), Slots: r.cfg.slots(), TotalWeight: r.total}
	for i, n := range r.nodes {
		share := float64(r.counts[i]) / float64(s.Slots)
		if want := n.Weight / r.total; want > 0 { // 0 when it underflows: the node owns no slot
			// A node reweighted to a vanishing weight may keep a slot: its
			// ratio overflows, and saturates so that Stats stay finite.
			s.MaxShareRatio = math.Max(s.MaxShareRatio, min(share/want, math.MaxFloat64))
		}
		s.PeakToMean = math.Max(s.PeakToMean, share*float64(len(r.nodes)))
	}
	if r.derived {
		s.MovedShare = float64(r.moved) / float64(s.Slots)
		s.OptimalMovedShare = r.optimal
	}
	return s
}

// shiftFor returns the shift that maps a 64-bit hash onto m slots.
func shiftFor(m int) uint { return uint(64 - bits.TrailingZeros(uint(m))) }
